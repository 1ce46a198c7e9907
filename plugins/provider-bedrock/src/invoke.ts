/**
 * Claude on Bedrock through InvokeModel / InvokeModelWithResponseStream: the client's Messages
 * body with `anthropic_version: "bedrock-2023-05-31"`, its betas (those Bedrock knows) in the
 * body's `anthropic_beta`. CountTokens takes the same body, base64-encoded, and is free.
 */
import { allowedBetas, cloudMessagesBody, splitBetas, withoutFields } from '@switchyard/provider-anthropic';
import { SwitchyardError, type Candidate, type ChatRequest, type ProviderHttpResponse, type ProviderRequest } from '@switchyard/core';
import { BEDROCK_DEFAULT_BETAS } from './betas.js';
import { modelPath } from './endpoint-url.js';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

export function invokeBody(request: ChatRequest, target: Candidate): Record<string, unknown> {
  const { body, betas } = cloudMessagesBody(request, target, BEDROCK_ANTHROPIC_VERSION);
  const { kept, fields } = splitBetas(betas, allowedBetas(target.endpoint, BEDROCK_DEFAULT_BETAS));
  const sent = withoutFields(body, fields);
  if (kept.length > 0) sent.anthropic_beta = kept;
  return sent;
}

export function buildInvokeRequest(request: ChatRequest, target: Candidate, stream: boolean): ProviderRequest {
  return {
    method: 'POST',
    path: `${modelPath(target.model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    headers: { 'content-type': 'application/json', accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json' },
    body: JSON.stringify(invokeBody(request, target)),
  };
}

/** CountTokens names a foundation model: a cross-region inference profile's geography prefix goes. */
export function foundationModel(model: string): string {
  return model.replace(/^(us|eu|apac|global|us-gov|jp|au|ca)\./, '');
}

export function buildInvokeCountTokensRequest(request: ChatRequest, target: Candidate): ProviderRequest {
  const body = Buffer.from(JSON.stringify(invokeBody(request, target))).toString('base64');
  return { method: 'POST', path: `${modelPath(foundationModel(target.model))}/count-tokens`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { invokeModel: { body } } }) };
}

export function parseCountTokensResponse(response: ProviderHttpResponse): number {
  const count = (response.json as { inputTokens?: unknown } | undefined)?.inputTokens;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw new SwitchyardError('server', 'bedrock answered CountTokens without inputTokens', { status: response.status, provider: 'bedrock' });
  return count;
}
