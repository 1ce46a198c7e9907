/**
 * @switchyard/provider-anthropic: the Anthropic Messages API as a Switchyard provider codec
 * (id `anthropic`). The core sends the requests and parses SSE; this package only translates.
 */
import { defineProvider } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, keepWireBody } from '@switchyard/core/wire';
import { classifyAnthropicError } from './classify-error.js';
import { buildCountTokensRequest, parseCountTokensResponse } from './count-tokens.js';
import { messagesOrigin, passThroughBody } from './pass-through.js';
import { buildMessagesBody, requestHeaders } from './request.js';
import { forwardable, parseMessagesResponse } from './response.js';
import { AnthropicStreamDecoder } from './stream-decoder.js';
import { anthropicUnsupported } from './unsupported.js';
import { checkAnthropicBaseUrl } from './base-url.js';
import { anthropicContinuation, repairThinking } from './continuation.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';

export const anthropicProvider = defineProvider({
  specificationVersion: 'v1',
  id: 'anthropic',
  defaultBaseUrl: ANTHROPIC_BASE_URL,
  // No native JSON mode in API version 2023-06-01, so `json` is not claimed.
  defaultCapabilities: ['tools', 'vision', 'prefill', 'stream'],
  speaks: (format) => format === ANTHROPIC_MESSAGES,
  checkEndpoint: (endpoint) => checkAnthropicBaseUrl(endpoint.baseUrl),
  unsupported: anthropicUnsupported,
  continuation: anthropicContinuation,
  repair: repairThinking,
  buildRequest(request, target, { stream }) {
    // A client of the Messages API gets its own request sent on (pass-through.ts).
    const origin = messagesOrigin(request);
    return {
      method: 'POST',
      path: '/messages',
      headers: Object.assign({ 'content-type': 'application/json' }, requestHeaders(target, origin?.headers)),
      body: JSON.stringify(origin ? passThroughBody(origin.body, target.model, stream) : buildMessagesBody(request, target, stream)),
    };
  },
  parseResponse(response, target) {
    const chat = parseMessagesResponse(response);
    chat.model ||= target.model;
    // A Messages client gets the vendor's own answer (every block, citations and all).
    if (forwardable(response.json)) keepWireBody(chat, { format: ANTHROPIC_MESSAGES, text: response.text });
    return chat;
  },
  createStreamDecoder(target) {
    return new AnthropicStreamDecoder(target);
  },
  classifyError: classifyAnthropicError,
  buildCountTokensRequest,
  parseCountTokensResponse,
  probe(target) {
    return { method: 'GET', path: '/models', headers: requestHeaders(target) };
  },
});

export const providers = [anthropicProvider];
export default providers;

export { ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS, buildMessagesBody } from './request.js';
export { finishReasonOf, toUnifiedUsage } from './mapping.js';
export { thinkingBlocksOf } from './thinking.js';
// The wire codec other channels of Claude reuse (Bedrock, Vertex AI).
export { classifyAnthropicError } from './classify-error.js';
export { cloudMessagesBody, splitBetas, type CloudMessagesBody } from './cloud.js';
export { parseMessagesResponse, forwardable } from './response.js';
export { AnthropicStreamDecoder } from './stream-decoder.js';
export type { MessagesRequestBody, MessagesResponseBody, SignedThinking } from './wire-types.js';
export { anthropicMessagesDialect } from './dialect/index.js';
