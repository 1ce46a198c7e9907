/**
 * One codec for the whole Chat Completions family. The three providers differ only in where
 * requests go, how they authenticate and which body fields they accept.
 */
import { defineProvider, SwitchyardError, type Candidate, type Capability, type EmbeddingResponse, type ProviderRequest, type ProviderV1 } from '@switchyard/core';
import { addFields, type ErrorRule } from '@switchyard/core/internal';
import { OPENAI_RESPONSES, type SplicedBody } from '@switchyard/core/wire';
import type { BalanceRoute } from './balance.js';
import { classifyHttpError } from './classify-error.js';
import { openaiContinuation } from './continuation.js';
import { parseChatResponse } from './response.js';
import { buildChatBody, buildEmbeddingsBody, passedThroughChatBody } from './request.js';
import { buildResponsesBody, responsesApiEnabled, responsesOrigin, responsesOwnBody } from './responses-request.js';
import { isResponseObject, parseResponsesResponse } from './responses-response.js';
import { ResponsesStreamDecoder } from './responses-stream-decoder.js';
import { ChatStreamDecoder } from './stream-decoder.js';
import { openAIFamilyUnsupported } from './unsupported.js';

export type OpenAIOperation = 'chat/completions' | 'responses' | 'embeddings' | 'models';

export interface OpenAIFamilyOptions {
  id: string;
  defaultBaseUrl?: string;
  defaultCapabilities: readonly Capability[];
  /** Path (with query) below the endpoint's baseUrl for an operation. */
  pathFor(operation: OpenAIOperation, target: Candidate): string;
  authHeaders(target: Candidate): Record<string, string>;
  allowedFields?: ReadonlySet<string>;
  keepReasoning: boolean;
  /** The vendor's own error table, applied before the family's generic classification. */
  errorRules?: readonly ErrorRule[];
  /**
   * Requests that came in the Responses API go to `/responses` as the client wrote them
   * (default false; the endpoint option `responsesApi` decides per endpoint).
   */
  responsesApi?: boolean;
  /**
   * Media types of the documents (`file` parts) it reads; none when absent (see unsupported.ts).
   * A deployment that declares the `documents` capability is taken to read PDFs (Azure API
   * versions with file input, a vLLM serving a model that reads them).
   */
  documentTypes?: ReadonlySet<string>;
  /** The vendor's account balance route, if it has one (balance.ts). */
  balance?: BalanceRoute;
  /** A mistake in an endpoint's config that would fail every request (ProviderV1.checkEndpoint). */
  checkEndpoint?: ProviderV1['checkEndpoint'];
}

export function defineOpenAIFamilyProvider(options: OpenAIFamilyOptions): ProviderV1 {
  const { id } = options;
  const responsesByDefault = options.responsesApi ?? false;
  /** `sent`: the client's own body (its text, and its bytes when kept), or one serialized here. */
  const post = (operation: OpenAIOperation, target: Candidate, sent: SplicedBody, accept: string): ProviderRequest => ({
    method: 'POST',
    path: options.pathFor(operation, target),
    // Not `{ ...JSON_HEADERS, accept, ...auth }`: a spread before a field takes V8's slow path (see core's addFields).
    headers: addFields({ 'content-type': 'application/json', accept } as Record<string, string>, options.authHeaders(target)),
    body: sent.body,
    bodyBytes: sent.bodyBytes,
  });
  const serialized = (body: unknown): SplicedBody => ({ body: JSON.stringify(body) });
  return defineProvider({
    specificationVersion: 'v1',
    id,
    ...(options.defaultBaseUrl ? { defaultBaseUrl: options.defaultBaseUrl } : {}),
    defaultCapabilities: options.defaultCapabilities,
    ...(options.checkEndpoint ? { checkEndpoint: options.checkEndpoint } : {}),
    speaks: (format, target) => format === OPENAI_RESPONSES && responsesApiEnabled(target, responsesByDefault),
    // A request passed through to /responses goes as the client wrote it: only a translated one is checked.
    unsupported: (request, target) => (responsesOrigin(request, target, responsesByDefault) ? undefined : openAIFamilyUnsupported(request, id, options.documentTypes ?? (target.capabilities.has('documents') ? PDF_DOCUMENTS : undefined))),
    // A Responses client's cut answer continues in its own body (continuation.ts); any other gets the unified prefill.
    continuation: (request, partialText) => openaiContinuation(request, partialText),
    buildRequest(request, target, { stream }) {
      const accept = stream ? 'text/event-stream' : 'application/json';
      const origin = responsesOrigin(request, target, responsesByDefault);
      if (origin) return post('responses', target, responsesOwnBody(origin, { model: target.model, stream }) ?? serialized(buildResponsesBody(origin, { model: target.model, stream })), accept);
      const bodyOptions = { stream, model: target.model, allowedFields: options.allowedFields, keepReasoning: options.keepReasoning };
      return post('chat/completions', target, passedThroughChatBody(request, bodyOptions) ?? serialized(buildChatBody(request, bodyOptions)), accept);
    },
    parseResponse(response, target) {
      if (isResponseObject(response.json)) return parseResponsesResponse(response, id, target, options.errorRules);
      return parseChatResponse(response, id, target);
    },
    createStreamDecoder(target, request) {
      if (responsesOrigin(request, target, responsesByDefault)) return new ResponsesStreamDecoder(id, target.apiKey, options.errorRules);
      return new ChatStreamDecoder(id, target.apiKey, options.errorRules);
    },
    classifyError(response, target) {
      return classifyHttpError({ provider: id, status: response.status, headers: response.headers, json: response.json, text: response.text, apiKey: target.apiKey, rules: options.errorRules });
    },
    probe(target) {
      return { method: 'GET', path: options.pathFor('models', target), headers: { accept: 'application/json', ...options.authHeaders(target) } };
    },
    ...(options.balance
      ? {
          balance(target: Candidate) {
            const base = target.endpoint.baseUrl ?? options.defaultBaseUrl;
            return base ? options.balance!(target, base, { accept: 'application/json', ...options.authHeaders(target) }) : undefined;
          },
        }
      : {}),
    buildEmbeddingsRequest(request, target) {
      return post('embeddings', target, serialized(buildEmbeddingsBody(request, target.model)), 'application/json');
    },
    parseEmbeddingsResponse(response, target) {
      const body = response.json as Partial<EmbeddingResponse> | undefined;
      if (!body || !Array.isArray(body.data)) {
        throw new SwitchyardError('server', `${id} answered ${response.status} with a body that is not an embeddings list`, { status: response.status, provider: id });
      }
      return {
        object: 'list',
        data: body.data,
        model: typeof body.model === 'string' && body.model ? body.model : target.model,
        ...(body.usage ? { usage: body.usage } : {}),
      };
    },
  });
}

/** What OpenAI's Chat Completions reads as a `file` part. */
export const PDF_DOCUMENTS: ReadonlySet<string> = new Set(['application/pdf']);

export const bearerAuth = (target: Candidate): Record<string, string> => (target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {});
