/**
 * The Anthropic Messages dialect: what Anthropic SDK clients and coding agents (Claude Code
 * with `ANTHROPIC_BASE_URL`) speak. `POST /v1/messages` and `POST /v1/messages/count_tokens`;
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

export const anthropicMessagesDialect = defineDialect({
  specificationVersion: 'v1',
  id: ANTHROPIC_MESSAGES,
  routes: [
    { method: 'POST', path: '/v1/messages', operation: 'generate' },
    { method: 'POST', path: '/v1/messages/count_tokens', operation: 'count-tokens' },
  ],
  credential(headers, query) {
    const key = headerValue(headers, 'x-api-key');
    return key !== undefined && key.length > 0 ? key : bearerCredential(headers, query);
  },
  decodeRequest({ body, headers }) {
    return decode(body, headers);
  },
  encodeResponse: (response) => messageBody(response),
  createStreamEncoder: (info) => new MessagesStreamEncoder(info),
  renderError: renderMessagesError,
  streamError: messagesStreamError,
  countTokens: {
    decode: ({ body, headers }) => decode(body, headers, { countOnly: true }) as { request: ChatRequest; inClientTerms(error: unknown): unknown },
    encode: ({ tokens }) => ({ input_tokens: tokens }),
  },
});
