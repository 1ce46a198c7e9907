/**
 * The OpenAI Responses dialect: `POST /v1/responses` (JSON and typed SSE events), and the
 * stored responses behind `store: true` (`GET` / `DELETE /v1/responses/{id}`, `GET
 * /v1/responses/{id}/input_items`). Clients authenticate with `Authorization: Bearer`, like
 * every OpenAI SDK, and get errors in the OpenAI error shape. Codex's model discovery (`GET
 * /v1/models?client_version=…`) is answered here, in Codex's shape (codex-models.ts).
 */
import { OPENAI_RESPONSES } from '@switchyard/core/wire';
import { defineDialect } from '@switchyard/core/dialect';
import { codexModelInfo, codexModelList, isCodexDiscovery } from './codex-models.js';
import { decodeResponsesRequest, type DecodedResponses } from './decode-responses.js';
import { errorEvent, renderResponsesError } from './errors.js';
import { responseBody } from './response-body.js';
import { ResponsesStreamEncoder } from './stream-encoder.js';
import { deleteStoredResponse, getStoredResponse } from './stored-responses.js';

export const openaiResponsesDialect = defineDialect<DecodedResponses>({
  specificationVersion: 'v1',
  id: OPENAI_RESPONSES,
  routes: [
    { method: 'POST', path: '/v1/responses', operation: 'generate' },
    { method: 'GET', path: '/v1/responses/{id*}', operation: 'custom', handle: getStoredResponse },
    { method: 'DELETE', path: '/v1/responses/{id*}', operation: 'custom', handle: deleteStoredResponse },
    // Codex's model discovery; other callers of /v1/models get another dialect's shape.
    { method: 'GET', path: '/v1/models', operation: 'models', claims: isCodexDiscovery },
  ],
  decodeRequest: decodeResponsesRequest,
  encodeResponse: (response, { echo, toolNames }) => responseBody(response, echo, toolNames),
  createStreamEncoder: (info, { echo, keep, toolNames }) => new ResponsesStreamEncoder(info, { echo, onFinal: keep, toolNames }),
  renderError: renderResponsesError,
  streamError: errorEvent,
  models: {
    list: (models) => codexModelList(models),
    one: (model) => codexModelInfo(model, 1),
  },
});

export { ResponsesStreamEncoder, type ResponsesStreamOptions } from './stream-encoder.js';
export { responseBody, requestEcho } from './response-body.js';
export { decodeRequest, inputItems } from './decode-request.js';
export { ResponseStore, RESPONSE_KEY_PREFIX, type StoredResponse } from './response-store.js';
export { writesSettled } from './write-behind.js';
