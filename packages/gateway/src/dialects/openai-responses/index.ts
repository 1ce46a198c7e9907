/**
 * The OpenAI Responses dialect: `POST /v1/responses` (JSON and typed SSE events), and the
 * stored responses behind `store: true` (`GET` / `DELETE /v1/responses/{id}`, `GET
 * /v1/responses/{id}/input_items`). Clients authenticate with `Authorization: Bearer`, like
 * every OpenAI SDK, and get errors in the OpenAI error shape.
 */
import { OPENAI_RESPONSES } from '@switchyard/core/wire';
import type { Dialect } from '../../dialect.js';
import { createResponse } from './create-response.js';
import { errorEvent } from './errors.js';
import { deleteStoredResponse, getStoredResponse } from './stored-responses.js';

export const openaiResponsesDialect: Dialect = {
  id: OPENAI_RESPONSES,
  routes: [
    { method: 'POST', path: '/v1/responses', handle: createResponse },
    { method: 'GET', path: '/v1/responses/', handle: getStoredResponse },
    { method: 'DELETE', path: '/v1/responses/', handle: deleteStoredResponse },
  ],
  streamError: errorEvent,
};

export { ResponsesStreamEncoder, type ResponsesStreamOptions } from './stream-encoder.js';
export { responseBody, requestEcho } from './response-body.js';
export { decodeRequest, inputItems } from './decode-request.js';
export { ResponseStore, RESPONSE_KEY_PREFIX, type StoredResponse } from './response-store.js';
