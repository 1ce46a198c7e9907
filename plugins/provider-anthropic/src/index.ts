/**
 * @switchyard/provider-anthropic: the Anthropic Messages API as a Switchyard provider codec
 * (id `anthropic`), and Claude on Azure AI Foundry (id `azure-foundry-anthropic`). The core sends the requests and parses SSE; this package only translates.
 */
import { defineProvider, type Candidate, type ChatRequest, type ProviderV1 } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, keepWireBody, originBodyFor } from '@switchyard/core/wire';
import { classifyAnthropicError } from './classify-error.js';
import { buildCountTokensRequest, parseCountTokensResponse } from './count-tokens.js';
import { messagesOrigin, passThroughBody } from './pass-through.js';
import { buildMessagesBody, requestHeaders } from './request.js';
import { forwardable, parseMessagesResponse } from './response.js';
import { AnthropicStreamDecoder } from './stream-decoder.js';
import { anthropicUnsupported } from './unsupported.js';
import { checkAnthropicBaseUrl, checkFoundryAnthropicEndpoint } from './base-url.js';
import { allowedBetas, ANTHROPIC_DEFAULT_BETAS, clientBetas, splitBetas, withoutFields } from './betas.js';
import { anthropicContinuation, repairThinking } from './continuation.js';
import { claudeDrops } from './drops.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';

const messagesCodec = {
  specificationVersion: 'v1',
  // No native JSON mode in API version 2023-06-01, so `json` is not claimed.
  defaultCapabilities: ['tools', 'vision', 'prefill', 'stream'],
  speaks: (format: string) => format === ANTHROPIC_MESSAGES,
  unsupported: anthropicUnsupported,
  continuation: anthropicContinuation,
  repair: repairThinking,
  buildRequest(request, target, { stream }) {
    // A client of the Messages API gets its own request sent on (pass-through.ts).
    const origin = messagesOrigin(request);
    const headers = Object.assign({ 'content-type': 'application/json' }, requestHeaders(target, origin?.headers));
    // The deployment's beta allow-list (`options.anthropicBetas`, else the betas billed at token prices): the rest goes, with the fields it turns on.
    const { kept, refused, fields } = splitBetas(clientBetas(request), allowedBetas(target.endpoint, ANTHROPIC_DEFAULT_BETAS));
    // The client's own text when nothing is taken out of it (a Claude Code turn is 100 KB and more: not serialized again).
    const own = origin && refused.length === 0 ? originBodyFor(origin, target.model, stream) : undefined;
    if (own !== undefined) return { method: 'POST', path: '/messages', headers, ...own };
    let body = origin ? passThroughBody(origin.body, target.model, stream) : (buildMessagesBody(request, target, stream) as unknown as Record<string, unknown>);
    if (refused.length > 0) {
      if (kept.length > 0) headers['anthropic-beta'] = kept.join(',');
      else delete headers['anthropic-beta'];
      body = withoutFields(body, fields);
    }
    return { method: 'POST', path: '/messages', headers, body: JSON.stringify(body) };
  },
  drops: (request: ChatRequest, target: Candidate) => claudeDrops(request, target, ANTHROPIC_DEFAULT_BETAS),
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
} satisfies Omit<ProviderV1, 'id'>;

export const anthropicProvider = defineProvider({
  ...messagesCodec,
  id: 'anthropic',
  defaultBaseUrl: ANTHROPIC_BASE_URL,
  checkEndpoint: (endpoint) => checkAnthropicBaseUrl(endpoint.baseUrl),
});

/**
 * Claude on Azure AI Foundry (provider id `azure-foundry-anthropic`): the Messages API of a
 * Foundry resource, `https://NAME.services.ai.azure.com/anthropic/v1`, the same requests and
 * answers as Anthropic's (a Messages client's body passes through), the deployment name as
 * `model`, the resource key in `x-api-key`.
 */
export const azureFoundryAnthropicProvider = defineProvider({
  ...messagesCodec,
  id: 'azure-foundry-anthropic',
  checkEndpoint: checkFoundryAnthropicEndpoint,
});

export const providers = [anthropicProvider, azureFoundryAnthropicProvider];
export default providers;

export { ANTHROPIC_VERSION, DEFAULT_MAX_TOKENS, buildMessagesBody } from './request.js';
export { finishReasonOf, toUnifiedUsage } from './mapping.js';
export { thinkingBlocksOf } from './thinking.js';
// The wire codec other channels of Claude reuse (Bedrock, Vertex AI).
export { classifyAnthropicError } from './classify-error.js';
export { cloudMessagesBody, type CloudMessagesBody } from './cloud.js';
export { claudeDrops } from './drops.js';
export { allowedBetas, ANTHROPIC_DEFAULT_BETAS, betaDrops, BETA_FIELDS, clientBetas, splitBetas, withoutFields, type BetaSplit } from './betas.js';
export { parseMessagesResponse, forwardable } from './response.js';
export { AnthropicStreamDecoder } from './stream-decoder.js';
export type { MessagesRequestBody, MessagesResponseBody, SignedThinking } from './wire-types.js';
export { anthropicMessagesDialect } from './dialect/index.js';
