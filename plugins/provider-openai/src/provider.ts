/**
 * One codec for the whole Chat Completions family. The three providers differ only in where
 * requests go, how they authenticate and which body fields they accept.
 */
import { addFields, defineProvider, SwitchyardError, type Candidate, type Capability, type EmbeddingResponse, type ErrorRule, type ProviderRequest, type ProviderV1 } from '@switchyard/core';
import type { BalanceRoute } from './balance.js';
import { classifyHttpError } from './classify-error.js';
import { parseChatResponse } from './response.js';
import { buildChatBody, buildEmbeddingsBody } from './request.js';
import { ChatStreamDecoder } from './stream-decoder.js';

export interface OpenAIFamilyOptions {
  id: string;
  defaultBaseUrl?: string;
  defaultCapabilities: readonly Capability[];
  /** Path (with query) below the endpoint's baseUrl for an operation. */
  pathFor(operation: 'chat/completions' | 'embeddings' | 'models', target: Candidate): string;
  authHeaders(target: Candidate): Record<string, string>;
  allowedFields?: ReadonlySet<string>;
  keepReasoning: boolean;
  /** The vendor's own error table, applied before the family's generic classification. */
  errorRules?: readonly ErrorRule[];
  /** The vendor's account balance route, if it has one (balance.ts). */
  balance?: BalanceRoute;
}

export function defineOpenAIFamilyProvider(options: OpenAIFamilyOptions): ProviderV1 {
  const { id } = options;
  const post = (operation: 'chat/completions' | 'embeddings', target: Candidate, body: unknown, accept: string): ProviderRequest => ({
    method: 'POST',
    path: options.pathFor(operation, target),
    // Not `{ ...JSON_HEADERS, accept, ...auth }`: a spread before a field takes V8's slow path (see core's addFields).
    headers: addFields({ 'content-type': 'application/json', accept } as Record<string, string>, options.authHeaders(target)),
    body: JSON.stringify(body),
  });
  return defineProvider({
    specificationVersion: 'v1',
    id,
    ...(options.defaultBaseUrl ? { defaultBaseUrl: options.defaultBaseUrl } : {}),
    defaultCapabilities: options.defaultCapabilities,
    buildRequest(request, target, { stream }) {
      const body = buildChatBody(request, { stream, model: target.model, allowedFields: options.allowedFields, keepReasoning: options.keepReasoning });
      return post('chat/completions', target, body, stream ? 'text/event-stream' : 'application/json');
    },
    parseResponse(response, target) {
      return parseChatResponse(response, id, target);
    },
    createStreamDecoder(target) {
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
      return post('embeddings', target, buildEmbeddingsBody(request, target.model), 'application/json');
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

export const bearerAuth = (target: Candidate): Record<string, string> => (target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {});
