/** Request id and trace context taken from client headers only when they are well-formed. */
import { randomId } from '@switchyard/core/internal';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID_RE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
const TRACEPARENT_RE = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function freshRequestId(): string {
  return randomId('req');
}

/** The client's `x-request-id` when it is short and plain, otherwise a fresh random one (128 bits). */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (given === undefined) return freshRequestId();
  const value = single(given)?.trim();
  return value && REQUEST_ID_RE.test(value) ? value : freshRequestId();
}

/**
 * Whether `requestId` (what `requestIdOf` gave) is one the gateway made, not the client's header:
 * random bytes, which can hold no configured key (its log lines need not mask it).
 */
export function isMadeRequestId(req: IncomingMessage, requestId: string): boolean {
  return single(req.headers['x-request-id'])?.trim() !== requestId;
}

/** A W3C `traceparent` to forward upstream, or undefined when absent or malformed. */
export function traceparentOf(req: IncomingMessage): string | undefined {
  const value = single(req.headers.traceparent)?.trim().toLowerCase();
  return value && TRACEPARENT_RE.test(value) ? value : undefined;
}

/** The client's `Idempotency-Key` header (the pipeline checks its length). */
export function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  return single(req.headers['idempotency-key'])?.trim() || undefined;
}

/** Session headers agents send beside their requests, read for prompt-cache affinity (CallOptions.sessionId). */
const SESSION_HEADERS = ['x-claude-code-session-id'];

/** The client's session id from its headers, bounded (it is hashed into a key, never stored as sent). */
export function sessionIdOf(req: IncomingMessage): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = single(req.headers[name])?.trim();
    if (value) return value.slice(0, 200);
  }
  return undefined;
}
