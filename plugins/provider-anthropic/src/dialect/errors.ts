/**
 * The gateway's error replies in the Messages API's shape, `{"type":"error","error":{"type",
 * "message"}}`, with Anthropic's statuses and types, so the Anthropic SDKs raise the error class
 * their users catch and retry what they would retry:
 *
 * | gateway reply                                        | status | type                  |
 * |------------------------------------------------------|--------|-----------------------|
 * | 400, 405, 409, 422 (the request)                     | same   | invalid_request_error |
 * | 401 (the gateway key)                                | 401    | authentication_error  |
 * | 403                                                  | 403    | permission_error      |
 * | 404 (unknown model or URL)                           | 404    | not_found_error       |
 * | 413 (body too large)                                 | 413    | request_too_large     |
 * | 429 (a vendor's rate limit, a local budget)          | 429    | rate_limit_error      |
 * | 504 (timeouts)                                       | 504    | timeout_error         |
 * | vendors overloaded, unavailable or failing (502/503) | 529    | overloaded_error      |
 * | the gateway's own config, upstream credentials, 500  | 500    | api_error             |
 * | a vendor connection lost (cut, reset)                | 500    | api_error             |
 *
 * A request every vendor failed counts as overloaded, unless every attempt timed out (504) or
 * failed on the gateway's configuration, keys refused or deployments unknown (500).
 *
 * Headers stay: `retry-after` where the gateway has a wait to advise, `x-should-retry: false`
 * on final errors (the Anthropic SDKs honour both).
 */
import { isSwitchyardError } from '@switchyard/core';
import type { GatewayErrorReply as ErrorReply, WireError } from '@switchyard/core/dialect';

/** Failures an operator must fix: retrying or waiting does not help, so not "overloaded". */
const GATEWAY_FAULTS = new Set(['upstream_auth_failed', 'upstream_misconfigured', 'gateway_misconfigured', 'internal_error']);

/** A vendor connection lost mid-answer: Anthropic's own word for a failure on its side is api_error, not overloaded. */
const CONNECTION_LOST = 'upstream_connection_lost';

const CUT_KINDS = new Set(['network', 'stream-cut']);

const TIMEOUTS = new Set(['timeout', 'ttft-timeout', 'idle-timeout']);

/**
 * A request every vendor failed, by what its attempts have in common: each refused the
 * gateway's keys or did not know its deployment (an operator's problem), or each timed out.
 */
function failedEverywhere(error: unknown): [number, string] | undefined {
  if (!isSwitchyardError(error) || error.kind !== 'all-candidates-failed' || !error.attempts?.length) return undefined;
  if (error.attempts.every((a) => a.outcome === 'key-failure' || a.outcome === 'misconfigured')) return [500, 'api_error'];
  if (error.attempts.every((a) => TIMEOUTS.has(a.kind))) return [504, 'timeout_error'];
  if (error.attempts.every((a) => CUT_KINDS.has(a.kind))) return [500, 'api_error'];
  return undefined;
}

function statusAndType(reply: ErrorReply, error?: unknown): [number, string] {
  const { status } = reply;
  const code = reply.body.error.code;
  switch (status) {
    case 401:
      return [401, 'authentication_error'];
    case 403:
      return [403, 'permission_error'];
    case 404:
      return [404, 'not_found_error'];
    case 413:
      return [413, 'request_too_large'];
    case 429:
      return [429, 'rate_limit_error'];
    case 504:
      return [504, 'timeout_error'];
  }
  if (status < 500) return [status, 'invalid_request_error'];
  const everywhere = failedEverywhere(error);
  if (everywhere) return everywhere;
  if (code !== null && (GATEWAY_FAULTS.has(code) || code === CONNECTION_LOST)) return [500, 'api_error'];
  if (status === 502 || status === 503) return [529, 'overloaded_error'];
  return [500, 'api_error'];
}

export interface MessagesErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

export function messagesErrorBody(reply: ErrorReply, error?: unknown): { status: number; body: MessagesErrorBody } {
  const [status, type] = statusAndType(reply, error);
  const { message, param } = reply.body.error;
  // Anthropic's messages start with the field they are about (`model: claude-x`).
  const named = param && !message.startsWith(param) ? `${param}: ${message}` : message;
  return { status, body: { type: 'error', error: { type, message: named } } };
}

export function renderMessagesError(reply: ErrorReply, error?: unknown): WireError {
  const { status, body } = messagesErrorBody(reply, error);
  return { status, body, headers: reply.headers };
}

/** A committed stream's failure: Anthropic's `error` event (never `message_stop`). */
export function messagesStreamError(reply: ErrorReply): string {
  return `event: error\ndata: ${JSON.stringify(messagesErrorBody(reply).body)}\n\n`;
}
