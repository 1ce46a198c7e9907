/**
 * Gemini's exact input token count (`models/{model}:countTokens`): the whole request as a
 * `generateContentRequest`, so the system instruction and tools are counted too.
 */
import { SwitchyardError, type Candidate, type ChatRequest, type ProviderHttpResponse, type ProviderRequest } from '@switchyard/core';
import { geminiHeaders, geminiRequestBody, modelPath } from './request.js';

export function buildCountTokensRequest(request: ChatRequest, target: Candidate): ProviderRequest {
  const path = modelPath(target.model);
  return {
    method: 'POST',
    path: `${path}:countTokens`,
    headers: geminiHeaders(target),
    body: JSON.stringify({ generateContentRequest: Object.assign({ model: decodeURIComponent(path.slice(1)) }, geminiRequestBody(request, target)) }),
  };
}

export function parseCountTokensResponse(response: ProviderHttpResponse): number {
  const count = (response.json as { totalTokens?: unknown } | undefined)?.totalTokens;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new SwitchyardError('server', 'gemini answered countTokens without a totalTokens count', { status: response.status, provider: 'gemini' });
  }
  return count;
}
