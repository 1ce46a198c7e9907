/**
 * The one place errors become HTTP replies: OpenAI-style bodies `{error:{message,type,param,code}}`
 * with the status core's error registry gives each error (`httpStatusOf`). Upstream credential
 * problems are the gateway's own, so they surface as 502, never as a 401 the client would blame
 * on its key. A final error the client must not retry says so (`x-should-retry: false`: the
 * official SDKs would otherwise retry it on top of the gateway's own attempts); one it may retry
 * later carries `retry-after` instead. The vendor's `type` and `param` reach the client on
 * request failures.
 */
import { GATEWAY_ERRORS } from './error-codes.js';
import '@switchyard/contracts';
import type { ServerResponse } from 'node:http';
import { httpStatusOf, isSwitchyardError, type SwitchyardError } from '@switchyard/core';
import { IDEMPOTENCY_CONFLICT, IDEMPOTENCY_UNAVAILABLE } from '@switchyard/core/internal';
import { errorReply, type GatewayErrorReply } from '@switchyard/core/dialect';
import { renderError, type Dialect } from './dialect.js';
import { sendError } from './http-reply.js';
import { noteErrorCode } from './sent-error.js';
import { clientMessage, type ErrorReplyOptions } from './upstream-message.js';

export type { ErrorReplyOptions } from './upstream-message.js';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The gateway's neutral error reply (core's `GatewayErrorReply`), which each dialect renders. */
export type ErrorReply = GatewayErrorReply;

export { errorReply };

function retryAfterHeader(ms: number | undefined, fallbackSeconds?: number): Record<string, string> {
  const seconds = ms !== undefined ? Math.max(1, Math.ceil(ms / 1000)) : fallbackSeconds;
  return seconds === undefined ? {} : { 'retry-after': String(seconds) };
}

/** A vendor's 4xx that is the request's fault keeps its status (a 404 naming a stored item too); anything odd becomes 400. */
function requestFaultStatus(status: number | undefined): number {
  return status !== undefined && status >= 400 && status < 500 && ![401, 402, 403, 407, 429].includes(status) ? status : 400;
}

function failedEverywhere(error: SwitchyardError, message: string): ErrorReply {
  const status = error.status === 429 || error.status === 503 || error.status === 504 ? error.status : 502;
  const type = status === 429 ? 'rate_limit_error' : 'server_error';
  // Every candidate was tried: only a vendor's own Retry-After invites the client back.
  const headers = status === 429 || status === 503 ? retryAfterHeader(error.retryAfterMs) : {};
  return errorReply(status, message, type, 'all_candidates_failed', null, headers);
}

/** A vendor connection that failed or closed before the answer was complete. */
export const CONNECTION_LOST_CODE = 'upstream_connection_lost';
const CONNECTION_LOST_MESSAGE = "the vendor's connection closed before the answer was complete";

/** The abort a shutting-down gateway gives the requests it could not finish. */
export const SHUTTING_DOWN_CODE = GATEWAY_ERRORS.SWITCHYARD_ERR_SHUTTING_DOWN;

/** Final unless the reply says when to come back: the gateway has already made its attempts. */
function withRetryAdvice(reply: ErrorReply): ErrorReply {
  if (reply.headers['retry-after'] !== undefined || reply.status === 499) return reply;
  return { ...reply, headers: { ...reply.headers, 'x-should-retry': 'false' } };
}

export function replyForError(error: unknown, options: ErrorReplyOptions = {}): ErrorReply {
  return withRetryAdvice(replyFor(error, options));
}

const CONNECTION_SHARE = 'SWITCHYARD_ERR_CONNECTION_SHARE';

/** Codes of the caller's own key (plugin-tenants) with a wire code of their own: [type, code]. */
const CALLER_KEY_CODES: Readonly<Record<string, readonly [string, string]>> = {
  SWITCHYARD_ERR_KEY_EXPIRED: ['invalid_request_error', 'key_expired'],
  SWITCHYARD_ERR_MODEL_NOT_ALLOWED: ['permission_error', 'model_not_allowed'],
  SWITCHYARD_ERR_KEY_NOT_FOUND: ['invalid_request_error', 'key_not_found'],
  SWITCHYARD_ERR_KEY_CONFLICT: ['invalid_request_error', 'key_conflict'],
  SWITCHYARD_ERR_KEY_INPUT: ['invalid_request_error', 'invalid_request'],
};

function replyFor(error: unknown, options: ErrorReplyOptions): ErrorReply {
  if (!isSwitchyardError(error)) return errorReply(500, 'internal gateway error', 'server_error', 'internal_error');
  const message = clientMessage(error, options);
  const status = httpStatusOf(error);
  switch (error.kind) {
    case 'invalid-request':
      if (Object.hasOwn(CALLER_KEY_CODES, error.code)) return errorReply(status, message, CALLER_KEY_CODES[error.code][0], CALLER_KEY_CODES[error.code][1], error.path ?? null);
      if (error.code === IDEMPOTENCY_CONFLICT) return errorReply(status, message, 'invalid_request_error', 'idempotency_conflict', null, retryAfterHeader(error.retryAfterMs, 1));
      if (status === 422) return errorReply(status, message, 'invalid_request_error', 'idempotency_key_reused', error.path ?? null);
      return errorReply(status, message, 'invalid_request_error', 'invalid_request', error.path ?? null);
    case 'unknown-model':
      return errorReply(status, message, 'invalid_request_error', 'model_not_found', 'model');
    case 'bad-request':
      return errorReply(requestFaultStatus(error.status), message, error.vendorType ?? 'invalid_request_error', error.vendorCode ?? 'bad_request', error.param ?? error.path ?? null);
    case 'context-length':
      return errorReply(status, message, error.vendorType ?? 'invalid_request_error', 'context_length_exceeded', error.param ?? 'messages');
    case 'content-filter':
      return errorReply(status, message, error.vendorType ?? 'invalid_request_error', 'content_filter', error.param ?? null);
    case 'rate-limit':
      return errorReply(status, message, 'rate_limit_error', 'rate_limit_exceeded', null, retryAfterHeader(error.retryAfterMs, 1));
    case 'budget-exhausted':
      // The key's share of an origin's connections: a rate of its own, not money.
      if (error.code === CONNECTION_SHARE) return errorReply(status, message, 'rate_limit_error', 'connection_share_exceeded', null, retryAfterHeader(error.retryAfterMs, 1));
      return errorReply(status, message, 'insufficient_quota', 'budget_exhausted', null, retryAfterHeader(error.retryAfterMs));
    case 'auth':
    case 'payment':
      return errorReply(status, `the upstream provider refused the gateway's credentials or billing${options.exposeUpstream && error.endpoint ? ` for ${error.endpoint}` : ''} (an operator must fix the gateway config)`, 'server_error', 'upstream_auth_failed');
    case 'all-candidates-failed':
      return failedEverywhere(error, message);
    case 'no-candidate':
      return errorReply(status, message, 'server_error', 'no_candidate', null, retryAfterHeader(error.retryAfterMs, 1));
    case 'overloaded':
      return errorReply(status, message, 'server_error', 'upstream_overloaded', null, retryAfterHeader(error.retryAfterMs, 1));
    case 'timeout':
    case 'ttft-timeout':
    case 'idle-timeout':
      return errorReply(status, message, 'server_error', 'upstream_timeout');
    case 'not-found':
      return errorReply(status, message, 'server_error', 'upstream_misconfigured');
    case 'network':
    case 'stream-cut':
      // The transport's own words (`UND_ERR_SOCKET other side closed`) are for the logs.
      return errorReply(status, options.exposeUpstream ? message : CONNECTION_LOST_MESSAGE, 'server_error', CONNECTION_LOST_CODE);
    case 'cancelled':
      if (error.code === SHUTTING_DOWN_CODE) return errorReply(status, message, 'server_error', 'shutting_down', null, { 'retry-after': '1' });
      return errorReply(status, message, 'invalid_request_error', 'cancelled');
    case 'config':
    case 'plugin':
      if (error.code === IDEMPOTENCY_UNAVAILABLE) return errorReply(status, message, 'server_error', 'idempotency_unavailable', null, retryAfterHeader(error.retryAfterMs, 1));
      return errorReply(status, message, 'server_error', 'gateway_misconfigured');
    default:
      return errorReply(status, message, 'server_error', 'upstream_error');
  }
}

function attemptsHeader(error: unknown): Record<string, string> {
  const attempts = isSwitchyardError(error) ? error.attempts : undefined;
  return attempts ? { 'x-switchyard-attempts': String(attempts.length) } : {};
}

/** Where an error reply goes: the response and the dialect its client speaks. */
export interface ErrorTarget {
  res: ServerResponse;
  dialect: Dialect;
  errorOptions: ErrorReplyOptions;
}

/**
 * Answers a failed request, whatever threw: a normal error status (in the client's dialect)
 * while no byte went out; the dialect's SSE error event (never a clean end) once a stream's
 * headers were sent.
 */
export function replyWithError(target: ErrorTarget, error: unknown): void {
  const { res, dialect } = target;
  const reply = replyForError(error, target.errorOptions);
  noteErrorCode(res, isSwitchyardError(error) ? error.code : reply.body.error.code);
  if (!res.headersSent) return sendError(res, renderError(dialect, reply, error), attemptsHeader(error));
  if (!res.writableEnded && !res.destroyed) res.end(dialect.streamError(reply));
}
