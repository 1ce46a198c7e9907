/**
 * Anthropic's exact input token count (`POST /v1/messages/count_tokens`): the client's own
 * count request when it came in the Messages dialect, else the Messages body built from the
 * unified request, with only the fields the count endpoint takes.
 */
import { SwitchyardError, type Candidate, type ChatRequest, type ProviderHttpResponse, type ProviderRequest } from '@switchyard/core';
import { messagesOrigin, passThroughBody } from './pass-through.js';
import { buildMessagesBody, requestHeaders } from './request.js';

/** What `/messages/count_tokens` accepts of a Messages body built from a unified request. */
const COUNTED_FIELDS = ['messages', 'system', 'tools', 'tool_choice', 'thinking'] as const;

export function buildCountTokensRequest(request: ChatRequest, target: Candidate): ProviderRequest {
  const origin = messagesOrigin(request);
  let body: Record<string, unknown>;
  if (origin) body = passThroughBody(origin.body, target.model, false);
  else {
    const built = buildMessagesBody(request, target, false) as unknown as Record<string, unknown>;
    body = { model: target.model };
    for (const field of COUNTED_FIELDS) if (built[field] !== undefined) body[field] = built[field];
  }
  return {
    method: 'POST',
    path: '/messages/count_tokens',
    headers: Object.assign({ 'content-type': 'application/json' }, requestHeaders(target, origin?.headers)),
    body: JSON.stringify(body),
  };
}

export function parseCountTokensResponse(response: ProviderHttpResponse): number {
  const count = (response.json as { input_tokens?: unknown } | undefined)?.input_tokens;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new SwitchyardError('server', 'anthropic answered count_tokens without an input_tokens count', { status: response.status, provider: 'anthropic' });
  }
  return count;
}
