/**
 * The Gemini API as a gateway dialect: what `@google/genai` and Gemini CLI
 * (`GOOGLE_GEMINI_BASE_URL`) speak. `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent` (`alt=sse`, or the default JSON array), `:countTokens`,
 * `:embedContent`, `:batchEmbedContents`, `GET /v1beta/models[/{model}]`, and the same under
 * `/v1/`; the key in `x-goog-api-key` or `?key=`; errors in Google's shape. It lives beside the
 * Gemini provider codec so both directions share one vocabulary (finish reasons, usage,
 * schemas, thought signatures) and a Gemini client's request reaches a Gemini vendor as it came.
 */
import type { EmbeddingRequest } from '@switchyard/core';
import { bearerCredential, defineDialect, headerValue, type DecodedRequest, type DialectCall, type DialectHeaders, type DialectRouteV1, type StreamFraming } from '@switchyard/core/dialect';
import { GEMINI_GENERATE_CONTENT } from '../wire-format.js';
import { decodeCountRequest, decodeGeminiRequest, invalid } from './decode-request.js';
import { geminiResponseBody } from './encode-response.js';
import { geminiErrorBody, geminiStreamError, renderGeminiError } from './errors.js';
import { GeminiStreamEncoder } from './stream-encoder.js';

/** A Gemini client: it sends its key as `x-goog-api-key` or `?key=` (for routes other APIs share, like `/v1/models`). */
export function isGeminiCaller(headers: DialectHeaders, query: URLSearchParams): boolean {
  return headerValue(headers, 'x-goog-api-key') !== undefined || query.has('key');
}

function routesUnder(version: string): DialectRouteV1[] {
  const model = `/${version}/models/{model}`;
  // `/v1/models` is OpenAI's and Anthropic's too: Gemini answers it for Gemini callers.
  const claims = version === 'v1' ? isGeminiCaller : undefined;
  return [
    { method: 'POST', path: `${model}:generateContent`, operation: 'generate' },
    { method: 'POST', path: `${model}:streamGenerateContent`, operation: 'generate', stream: true },
    { method: 'POST', path: `${model}:countTokens`, operation: 'count-tokens' },
    { method: 'POST', path: `${model}:embedContent`, operation: 'embed' },
    { method: 'POST', path: `${model}:batchEmbedContents`, operation: 'embed' },
    { method: 'GET', path: `/${version}/models`, operation: 'models', ...(claims ? { claims } : {}) },
    { method: 'GET', path: `/${version}/models/{model*}`, operation: 'model', ...(claims ? { claims } : {}) },
  ];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function textOf(content: unknown, path: string): string {
  if (!isObject(content) || !Array.isArray(content.parts)) throw invalid(path, 'must be a content with parts');
  return content.parts.map((part, j) => {
    if (!isObject(part) || typeof part.text !== 'string') throw invalid(`${path}.parts[${j}]`, 'must be a text part (embeddings take text)');
    return part.text;
  }).join(' ');
}

function modelOf(call: DialectCall): string {
  const model = decodeURIComponent(call.params.model ?? '');
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

/** `embedContent` and `batchEmbedContents` bodies → one embeddings request. */
function decodeEmbeddings(call: DialectCall): EmbeddingRequest {
  const body = call.body;
  if (!isObject(body)) throw invalid('(body)', 'the request body must be a JSON object');
  const batch = call.route.path.endsWith(':batchEmbedContents');
  const requests = batch ? body.requests : [body];
  if (!Array.isArray(requests) || requests.length === 0) throw invalid('requests', 'must be a non-empty array');
  const input = requests.map((r, i) => textOf(isObject(r) ? r.content : undefined, batch ? `requests[${i}].content` : 'content'));
  const dimensions = (requests[0] as Record<string, unknown>).outputDimensionality;
  return { model: modelOf(call), input: batch ? input : input[0]!, ...(typeof dimensions === 'number' ? { dimensions } : {}) };
}

function modelEntry(id: string) {
  return { name: `models/${id}`, baseModelId: id, version: '001', displayName: id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents'] };
}

/** Google's default stream: one JSON array, its elements written as they come; whitespace keeps the connection alive. */
const JSON_ARRAY_STREAM: StreamFraming = {
  contentType: 'application/json; charset=utf-8',
  heartbeat: ' ',
  // A failure before the first element: an array holding the error, as Google ends a stream it cannot finish.
  error: (reply) => `[${JSON.stringify(geminiErrorBody(reply))}]`,
};

interface GeminiDecoded extends DecodedRequest {
  /** `alt=sse`: the stream as server-sent events (else Google's default, one JSON array). */
  readonly sse: boolean;
}

export const geminiDialect = defineDialect<GeminiDecoded>({
  specificationVersion: 'v1',
  id: GEMINI_GENERATE_CONTENT,
  routes: [...routesUnder('v1beta'), ...routesUnder('v1')],
  credential: (headers, query) => headerValue(headers, 'x-goog-api-key') ?? query.get('key') ?? bearerCredential(headers, query),
  decodeRequest: (call) => {
    const { request, stream, hints, capabilities } = decodeGeminiRequest({ model: call.params.model, body: call.body, bodyText: call.bodyText, bodyBytes: call.bodyBytes, stream: call.route.stream === true });
    // Written field by field: a spread followed by a field leaves V8's fast clone path (bench/README.md, Findings).
    return { request, stream, hints, capabilities, sse: call.query.get('alt') === 'sse' };
  },
  encodeResponse: (response) => geminiResponseBody(response),
  createStreamEncoder: (info, { sse }) => new GeminiStreamEncoder(info, sse),
  streamFraming: ({ sse }) => (sse ? undefined : JSON_ARRAY_STREAM),
  renderError: renderGeminiError,
  streamError: geminiStreamError,
  countTokens: {
    decode: (call) => decodeCountRequest(call.params.model, call.body),
    encode: ({ tokens }) => ({ totalTokens: tokens }),
  },
  embeddings: {
    decode: decodeEmbeddings,
    encode: (response, call) => {
      const values = response.data.map((d) => ({ values: d.embedding }));
      return call.route.path.endsWith(':batchEmbedContents') ? { embeddings: values } : { embedding: values[0] };
    },
  },
  models: {
    list: (models) => ({ models: models.map(modelEntry) }),
    one: (id) => modelEntry(id.startsWith('models/') ? id.slice('models/'.length) : id),
  },
});
