/**
 * OpenAI-style error bodies `{error:{message,type,param,code}}` and the HTTP status each
 * SwitchyardError kind means to a gateway client. Upstream credential problems are the
 * gateway's own, so they surface as 502, never as a 401 the client would blame on its key.
 */
import { isSwitchyardError, type SwitchyardError } from '@switchyard/core';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface ErrorReply {
  status: number;
  body: OpenAIErrorBody;
  headers: Record<string, string>;
}

export function errorReply(status: number, message: string, type: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}): ErrorReply {
  return { status, body: { error: { message, type, param, code } }, headers };
}

function retryAfterHeader(ms: number | undefined, fallbackSeconds?: number): Record<string, string> {
  const seconds = ms !== undefined ? Math.max(1, Math.ceil(ms / 1000)) : fallbackSeconds;
  return seconds === undefined ? {} : { 'retry-after': String(seconds) };
}

/** A vendor's 4xx that is the request's fault keeps its status; anything odd becomes 400. */
function requestFaultStatus(status: number | undefined): number {
  return status !== undefined && status >= 400 && status < 500 && ![401, 402, 403, 404, 407, 429].includes(status) ? status : 400;
}

function failedEverywhere(error: SwitchyardError): ErrorReply {
  const status = error.status === 429 || error.status === 503 || error.status === 504 ? error.status : 502;
  const type = status === 429 ? 'rate_limit_error' : 'server_error';
  const headers = status === 429 || status === 503 ? retryAfterHeader(error.retryAfterMs, 1) : {};
  return errorReply(status, error.message, type, 'all_candidates_failed', null, headers);
}

/** The abort a shutting-down gateway gives the requests it could not finish. */
export const SHUTTING_DOWN_CODE = 'SWITCHYARD_ERR_SHUTTING_DOWN';

export function replyForError(error: unknown): ErrorReply {
  if (!isSwitchyardError(error)) return errorReply(500, 'internal gateway error', 'server_error', 'internal_error');
  const message = error.message;
  switch (error.kind) {
    case 'invalid-request':
      return errorReply(400, message, 'invalid_request_error', 'invalid_request', error.path ?? null);
    case 'unknown-model':
      return errorReply(404, message, 'invalid_request_error', 'model_not_found', 'model');
    case 'bad-request':
      return errorReply(requestFaultStatus(error.status), message, 'invalid_request_error', error.vendorCode ?? 'bad_request', error.path ?? null);
    case 'context-length':
      return errorReply(400, message, 'invalid_request_error', 'context_length_exceeded', 'messages');
    case 'content-filter':
      return errorReply(400, message, 'invalid_request_error', 'content_filter', null);
    case 'rate-limit':
      return errorReply(429, message, 'rate_limit_error', 'rate_limit_exceeded', null, retryAfterHeader(error.retryAfterMs, 1));
    case 'budget-exhausted':
      return errorReply(429, message, 'insufficient_quota', 'budget_exhausted', null, retryAfterHeader(error.retryAfterMs));
    case 'auth':
    case 'payment':
      return errorReply(502, `the upstream provider refused the gateway's credentials or billing for ${error.endpoint ?? 'an endpoint'} (an operator must fix the gateway config)`, 'server_error', 'upstream_auth_failed');
    case 'all-candidates-failed':
      return failedEverywhere(error);
    case 'no-candidate':
      return errorReply(503, message, 'server_error', 'no_candidate', null, retryAfterHeader(error.retryAfterMs, 1));
    case 'overloaded':
      return errorReply(503, message, 'server_error', 'upstream_overloaded', null, retryAfterHeader(error.retryAfterMs, 1));
    case 'timeout':
    case 'ttft-timeout':
    case 'idle-timeout':
      return errorReply(504, message, 'server_error', 'upstream_timeout');
    case 'not-found':
      return errorReply(502, message, 'server_error', 'upstream_misconfigured');
    case 'cancelled':
      if (error.code === SHUTTING_DOWN_CODE) return errorReply(503, message, 'server_error', 'shutting_down', null, { 'retry-after': '1' });
      return errorReply(499, message, 'invalid_request_error', 'cancelled');
    case 'config':
    case 'plugin':
      return errorReply(500, message, 'server_error', 'gateway_misconfigured');
    default:
      return errorReply(502, message, 'server_error', 'upstream_error');
  }
}
