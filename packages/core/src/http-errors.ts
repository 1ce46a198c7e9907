/**
 * Helpers every provider codec uses to turn a vendor's HTTP failure into a SwitchyardError:
 * retry-delay headers, status classes, context-length detection. Providers add the vendor's
 * own body codes on top.
 */
import { SwitchyardError, type ErrorKind } from './errors.js';

/** Headers that policies need after an attempt; everything else is dropped from errors. */
const POLICY_HEADERS = /^(retry-after|retry-after-ms|x-should-retry|x-ratelimit-.*|anthropic-ratelimit-.*|x-request-id|request-id)$/;

export function policyHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (POLICY_HEADERS.test(k)) out[k] = v;
  return out;
}

/** Go-style durations as OpenAI sends them in x-ratelimit-reset-*: `12ms`, `1s`, `6m0s`, `1h2m3.5s`. */
export function parseDuration(value: string): number | undefined {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = '';
  for (let m = re.exec(trimmed); m; m = re.exec(trimmed)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    matched += m[0];
  }
  return matched.length > 0 && matched === trimmed ? total : undefined;
}

/**
 * The delay a vendor asked for, in milliseconds: `retry-after-ms`, then `retry-after` (seconds
 * or HTTP-date), then the nearest `x-ratelimit-reset-*` / `anthropic-ratelimit-*-reset`.
 */
export function parseRetryAfter(headers: Record<string, string>, now: number = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headers['retry-after'];
  if (ra !== undefined && ra.trim() !== '') {
    const n = Number(ra);
    if (Number.isFinite(n) && n >= 0) return n * 1000;
    const date = Date.parse(ra);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  let nearest: number | undefined;
  for (const [k, v] of Object.entries(headers)) {
    let delay: number | undefined;
    if (/^x-ratelimit-reset-(requests|tokens)$/.test(k)) delay = parseDuration(v);
    else if (/^anthropic-ratelimit-.*-reset$/.test(k)) {
      const at = Date.parse(v);
      if (Number.isFinite(at)) delay = Math.max(0, at - now);
    }
    if (delay !== undefined && (nearest === undefined || delay < nearest)) nearest = delay;
  }
  return nearest;
}

/** Protobuf Duration strings in Gemini RetryInfo: `"34.4s"`. */
export function parseProtoDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return m ? Number(m[1]) * 1000 : undefined;
}

const CONTEXT_LENGTH_RE = /maximum context length|context length|context window|prompt is too long|input token count .* exceeds|exceeds the (maximum|context)|too many tokens|reduce the length/i;

export function isContextLengthMessage(message: string | undefined, code?: string): boolean {
  if (code === 'context_length_exceeded' || code === 'string_above_max_length') return true;
  return message !== undefined && CONTEXT_LENGTH_RE.test(message);
}

/** The kind a status means when the body says nothing more specific. */
export function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'payment';
  if (status === 404) return 'not-found';
  if (status === 408) return 'timeout';
  if (status === 409) return 'server';
  if (status === 429) return 'rate-limit';
  if (status === 529) return 'overloaded';
  if (status === 503) return 'overloaded';
  if (status >= 500) return 'server';
  return 'bad-request';
}

export interface HttpErrorDetails {
  status: number;
  headers: Record<string, string>;
  message: string;
  vendorCode?: string;
  /** Overrides the kind derived from the status. */
  kind?: ErrorKind;
  retryAfterMs?: number;
  provider?: string;
  now?: number;
  vendorType?: string;
  param?: string;
}

/** Builds the error for a failed HTTP exchange; honours `x-should-retry` and retry headers. */
export function httpError(details: HttpErrorDetails): SwitchyardError {
  const kind = details.kind ?? kindForStatus(details.status);
  const headers = policyHeaders(details.headers);
  const retryAfterMs = details.retryAfterMs ?? parseRetryAfter(headers, details.now);
  let retryable: boolean | undefined;
  const shouldRetry = headers['x-should-retry'];
  if (shouldRetry === 'true') retryable = true;
  else if (shouldRetry === 'false') retryable = false;
  const message = `${details.provider ?? 'vendor'} answered ${details.status}: ${details.message}`;
  return new SwitchyardError(kind, message, {
    status: details.status,
    headers,
    retryAfterMs,
    retryable,
    vendorCode: details.vendorCode,
    vendorType: details.vendorType,
    param: details.param,
    provider: details.provider,
  });
}

/** A short printable excerpt of a non-JSON error body (CDN HTML pages and the like). */
export function bodyExcerpt(text: string, max = 200): string {
  const flat = text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat || '(empty body)';
}
