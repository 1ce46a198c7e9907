/**
 * GET /switchyard/usage?since=&until=&groupBy=deployment|key|model|tag|day|gatewayKey|team&forecast=day|month: the ledger's
 * totals (billed and estimated apart) from the quota plugin's usage service. The gateway
 * imports no plugin: it asks the pipeline for the typed `SERVICE.usage` key.
 */
import { SERVICE } from '@switchyard/contracts';
import type { ServerResponse } from 'node:http';
import { getService, type Pipeline } from '@switchyard/core';
import { sendError, sendJson } from './http-reply.js';
import { errorReply } from './openai-errors.js';

export async function usageRoute(pipeline: Pipeline, url: string, res: ServerResponse): Promise<void> {
  const service = getService(pipeline, SERVICE.usage);
  if (!service) return sendError(res, errorReply(404, 'no usage ledger: add "ledger: {}" to the options of @switchyard/plugin-quota', 'invalid_request_error', 'ledger_not_configured'));
  const params = new URL(url, 'http://gateway.invalid').searchParams;
  try {
    sendJson(res, 200, await service.answer({ since: params.get('since'), until: params.get('until'), groupBy: params.get('groupBy'), forecast: params.get('forecast') }));
  } catch (error) {
    // The ledger's query errors name the bad parameter; anything else is ours.
    if ((error as Error).name === 'UsageQueryError') return sendError(res, errorReply(400, (error as Error).message, 'invalid_request_error', 'invalid_usage_query'));
    throw error;
  }
}
