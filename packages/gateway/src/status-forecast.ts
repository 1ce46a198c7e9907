/**
 * The spend forecast on /status: the usage ledger's projection of the current UTC day and
 * month (plugin-quota with `ledger` on), read when the page is asked for. Without a ledger,
 * or if the store cannot answer, the report says `forecast: null` and the rest still shows.
 */
import { SERVICE, type SpendForecast } from '@switchyard/contracts';
import { getService, type Pipeline } from '@switchyard/core';
import type { StatusReport } from './status-board.js';

export async function withSpendForecast(report: StatusReport, pipeline: Pipeline | undefined): Promise<StatusReport> {
  const service = pipeline && getService(pipeline, SERVICE.usage);
  let forecast: { day: SpendForecast; month: SpendForecast } | null = null;
  if (service?.forecast) {
    try {
      const [day, month] = await Promise.all([service.forecast('day'), service.forecast('month')]);
      forecast = { day, month };
    } catch {
      // The page is for an outage too: a store that does not answer leaves the forecast out.
    }
  }
  return Object.assign(report, { forecast });
}
