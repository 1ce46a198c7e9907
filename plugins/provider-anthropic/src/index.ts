/**
 * @switchyard/provider-anthropic: the Anthropic Messages API as a Switchyard provider codec
 * (id `anthropic`). The core sends the requests and parses SSE; this package only translates.
 */
import { defineProvider } from '@switchyard/core';
import { classifyAnthropicError } from './classify-error.js';
import { buildMessagesBody, requestHeaders } from './request.js';
import { parseMessagesResponse } from './response.js';
import { AnthropicStreamDecoder } from './stream-decoder.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';

export const anthropicProvider = defineProvider({
  specificationVersion: 'v1',
  id: 'anthropic',
  defaultBaseUrl: ANTHROPIC_BASE_URL,
  // No native JSON mode in API version 2023-06-01, so `json` is not claimed.
  defaultCapabilities: ['tools', 'vision', 'prefill', 'stream'],
  buildRequest(request, target, { stream }) {
    return {
      method: 'POST',
      path: '/messages',
      headers: { 'content-type': 'application/json', ...requestHeaders(target) },
      body: JSON.stringify(buildMessagesBody(request, target, stream)),
    };
  },
  parseResponse(response, target) {
    const chat = parseMessagesResponse(response);
    chat.model ||= target.model;
    return chat;
  },
  createStreamDecoder(target) {
    return new AnthropicStreamDecoder(target);
  },
  classifyError: classifyAnthropicError,
  probe(target) {
    return { method: 'GET', path: '/models', headers: requestHeaders(target) };
  },
});

export const providers = [anthropicProvider];
export default providers;

export { ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS, buildMessagesBody } from './request.js';
export { finishReasonOf, toUnifiedUsage } from './mapping.js';
export { thinkingBlocksOf } from './thinking.js';
export type { MessagesRequestBody, MessagesResponseBody, SignedThinking } from './wire-types.js';
