/**
 * Anthropic failures → SwitchyardError. The body's `error.type` decides first (the status
 * alone cannot tell a spend cap from a rate limit); the status is the fallback for bodies that
 * are not Anthropic's JSON (Cloudflare's 413 page, gateway 5xx pages).
 */
import { httpError, SwitchyardError, type Candidate, type ErrorKind, type ProviderHttpResponse } from '@switchyard/core';
import { bodyExcerpt, isContextLengthMessage, kindForStatus, redactSecrets } from '@switchyard/core/wire';
import type { AnthropicErrorBody } from './wire-types.js';

const KIND_BY_TYPE: Readonly<Record<string, ErrorKind>> = {
  invalid_request_error: 'bad-request',
  authentication_error: 'auth',
  permission_error: 'auth',
  billing_error: 'payment',
  not_found_error: 'not-found',
  request_too_large: 'bad-request',
  rate_limit_error: 'rate-limit',
  api_error: 'server',
  timeout_error: 'timeout',
  overloaded_error: 'overloaded',
};

/** The HTTP status Anthropic documents for each error type (used for errors inside a 200 stream). */
const STATUS_BY_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** A spend cap comes as a 429-looking error but will not clear by waiting: it is a key failure. */
const SPEND_LIMIT = 'enforced_spend_limit_reached';

interface Diagnosis {
  kind: ErrorKind;
  vendorCode?: string;
  message: string;
}

function diagnose(status: number, body: AnthropicErrorBody | undefined, text: string, apiKey: string | undefined): Diagnosis {
  const type = typeof body?.error?.type === 'string' ? body.error.type : undefined;
  const vendorMessage = typeof body?.error?.message === 'string' ? body.error.message : bodyExcerpt(text);
  const requestId = typeof body?.request_id === 'string' ? `, request ${body.request_id}` : '';
  const message = redactSecrets(type ? `${vendorMessage} (${type}${requestId})` : vendorMessage, [apiKey]);
  if (text.includes(SPEND_LIMIT)) return { kind: 'payment', vendorCode: SPEND_LIMIT, message };
  const mayBeContextLength = type === 'invalid_request_error' || (type === undefined && (status === 400 || status === 413));
  if (mayBeContextLength && isContextLengthMessage(vendorMessage)) return { kind: 'context-length', vendorCode: type, message };
  const kind = (type && KIND_BY_TYPE[type]) || (status === 504 ? 'timeout' : kindForStatus(status));
  return { kind, vendorCode: type, message };
}

function errorBody(json: unknown): AnthropicErrorBody | undefined {
  return typeof json === 'object' && json !== null ? (json as AnthropicErrorBody) : undefined;
}

export function classifyAnthropicError(response: ProviderHttpResponse, target: Candidate): SwitchyardError {
  const { kind, vendorCode, message } = diagnose(response.status, errorBody(response.json), response.text, target.apiKey);
  return httpError({ status: response.status, headers: response.headers, message, vendorCode, kind, provider: 'anthropic' });
}

/** An `error` event inside an HTTP 200 stream (`overloaded_error` mid-generation and the like). */
export function streamEventError(json: unknown, target: Candidate): SwitchyardError {
  const body = errorBody(json);
  const type = typeof body?.error?.type === 'string' ? body.error.type : 'api_error';
  const status = STATUS_BY_TYPE[type] ?? 500;
  const { kind, vendorCode, message } = diagnose(status, body, JSON.stringify(json), target.apiKey);
  return new SwitchyardError(kind, `anthropic stream error event: ${message}`, { status, vendorCode, provider: 'anthropic' });
}
