/**
 * The Anthropic Messages dialect: what Anthropic SDK clients and coding agents (Claude Code
 * with `ANTHROPIC_BASE_URL`) speak. `POST /v1/messages`, `POST /v1/messages/count_tokens`, and
 * `GET /v1/models[/{id}]` in Anthropic's shape for Anthropic callers;
 * the gateway key as `x-api-key` (`ANTHROPIC_API_KEY`) or `Authorization: Bearer`
 * (`ANTHROPIC_AUTH_TOKEN`); errors in Anthropic's shape and statuses. An answer from Anthropic
 * goes out as Anthropic wrote it; anything else is encoded from the unified answer.
 */
import { type ChatRequest } from '@switchyard/core';
import { ANTHROPIC_MESSAGES } from '@switchyard/core/wire';
import { bearerCredential, defineDialect, headerValue, type DialectHeaders } from '@switchyard/core/dialect';
import { inClientTerms, PathRecorder } from './client-paths.js';
import { decodeMessagesRequest, type DecodeOptions } from './decode-request.js';
import { messageBody } from './encode-response.js';
import { messagesStreamError, renderMessagesError } from './errors.js';
import { MessagesStreamEncoder } from './stream-encoder.js';

/** A decoded body and how to name its fields in the client's terms when an error comes back. */
function decode(body: unknown, headers: DialectHeaders, options: DecodeOptions = {}) {
  const { request, stream, hints, capabilities } = decodeMessagesRequest(body, headers, options);
  const paths = () => {
    const recorder = new PathRecorder();
    decodeMessagesRequest(body, headers, { ...options, paths: recorder });
    return recorder;
  };
  return { request, stream, hints, capabilities, inClientTerms: (error: unknown) => inClientTerms(error, request, paths) };
}

/**
 * An Anthropic client on a path several APIs share (`GET /v1/models`): it sends
 * `anthropic-version` or its key as `x-api-key`. A Gemini client's `x-goog-api-key` / `?key=`
 * comes first (the Gemini dialect answers it).
 */
export function isAnthropicCaller(headers: DialectHeaders, query: URLSearchParams): boolean {
  if (headerValue(headers, 'x-goog-api-key') !== undefined || query.has('key')) return false;
  return headerValue(headers, 'anthropic-version') !== undefined || headerValue(headers, 'x-api-key') !== undefined;
}

/** A model as Anthropic's `GET /v1/models` lists it. */
function modelInfo(id: string, created: number) {
  return { type: 'model', id, display_name: id, created_at: new Date(created * 1000).toISOString() };
}

export const anthropicMessagesDialect = defineDialect({
  specificationVersion: 'v1',
  id: ANTHROPIC_MESSAGES,
  routes: [
    { method: 'POST', path: '/v1/messages', operation: 'generate' },
    { method: 'POST', path: '/v1/messages/count_tokens', operation: 'count-tokens' },
    { method: 'GET', path: '/v1/models', operation: 'models', claims: isAnthropicCaller },
    { method: 'GET', path: '/v1/models/{model*}', operation: 'model', claims: isAnthropicCaller },
  ],
  credential(headers, query) {
    const key = headerValue(headers, 'x-api-key');
    return key !== undefined && key.length > 0 ? key : bearerCredential(headers, query);
  },
  decodeRequest({ body, headers, bodyText, bodyBytes }) {
    return decode(body, headers, bodyText === undefined ? {} : { bodyText, bodyBytes });
  },
  encodeResponse: (response) => messageBody(response),
  createStreamEncoder: (info) => new MessagesStreamEncoder(info),
  renderError: renderMessagesError,
  streamError: messagesStreamError,
  countTokens: {
    decode: ({ body, headers }) => decode(body, headers, { countOnly: true }) as { request: ChatRequest; inClientTerms(error: unknown): unknown },
    encode: ({ tokens }) => ({ input_tokens: tokens }),
  },
  models: {
    list: (models, created) => {
      const data = models.map((id) => modelInfo(id, created));
      return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
    },
    one: modelInfo,
  },
});
