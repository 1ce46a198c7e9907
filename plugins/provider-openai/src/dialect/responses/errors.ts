/**
 * Errors on the Responses routes: the OpenAI error shape every route of the gateway uses, with
 * the codes OpenAI gives a missing stored response (`previous_response_not_found` naming the
 * field, and a 404 for `GET /v1/responses/{id}`), and the stream's `error` event.
 */
import { OPENAI_ERRORS } from '../../error-codes.js';
import { isSwitchyardError } from '@switchyard/core';
import { errorReply, type GatewayErrorReply as ErrorReply, type WireError } from '@switchyard/core/dialect';

export const RESPONSE_NOT_FOUND = OPENAI_ERRORS.SWITCHYARD_ERR_RESPONSE_NOT_FOUND;
export const PREVIOUS_RESPONSE_NOT_FOUND = OPENAI_ERRORS.SWITCHYARD_ERR_PREVIOUS_RESPONSE_NOT_FOUND;
/**
 * Owned by the Responses dialect (registered in ../../error-codes.ts): `store: true` past a
 * stored-bytes cap (429), and a `previous_response_id` conversation past its byte limit (400).
 */
export const RESPONSE_STORE_FULL = OPENAI_ERRORS.SWITCHYARD_ERR_RESPONSE_STORE_FULL;
export const CONVERSATION_TOO_LARGE = OPENAI_ERRORS.SWITCHYARD_ERR_CONVERSATION_TOO_LARGE;

/** A failed Responses request in OpenAI's terms: the stored-response codes, the rest as the gateway gives them. */
export function renderResponsesError(reply: ErrorReply, error?: unknown): WireError {
  if (isSwitchyardError(error)) {
    if (error.code === PREVIOUS_RESPONSE_NOT_FOUND) return errorReply(400, error.message, 'invalid_request_error', 'previous_response_not_found', 'previous_response_id', { 'x-should-retry': 'false' });
    if (error.code === RESPONSE_NOT_FOUND) return errorReply(404, error.message, 'invalid_request_error', 'response_not_found', null, { 'x-should-retry': 'false' });
  }
  return reply;
}

/** The stream's `error` event (a failure after heartbeats, before any response existed). */
export function errorEvent(reply: ErrorReply): string {
  const { code, message, param } = reply.body.error;
  return `event: error\ndata: ${JSON.stringify({ type: 'error', code, message, param, sequence_number: 0 })}\n\n`;
}
