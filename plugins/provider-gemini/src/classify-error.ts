/**
 * Gemini error bodies (`{error:{code,message,status,details[]}}`, google.rpc details) → the
 * unified error kinds. Gemini's quirks: an invalid key is a 400 (ErrorInfo API_KEY_INVALID), the
 * retry delay is in the body (RetryInfo), and a per-day quota 429 will not clear in minutes.
 */
import { httpError, type ErrorKind, type SwitchyardError } from '@switchyard/core';
import { bodyExcerpt, isContextLengthMessage, redactSecrets } from '@switchyard/core/wire';
import { parseProtoDuration } from '@switchyard/core/config';
import type { GeminiErrorBody, GeminiErrorDetail } from './wire-types.js';

const KEY_FAILURE_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED', 'API_KEY_HTTP_REFERRER_BLOCKED', 'API_KEY_IP_ADDRESS_BLOCKED']);

function detailsOfType(details: readonly GeminiErrorDetail[], type: string): GeminiErrorDetail[] {
  return details.filter((d) => typeof d['@type'] === 'string' && d['@type'].endsWith(`google.rpc.${type}`));
}

/** A quota that resets daily (or is zero on this tier) will not come back within any retry window. */
function isLongQuota(details: readonly GeminiErrorDetail[], message: string): boolean {
  const daily = detailsOfType(details, 'QuotaFailure').some((d) => d.violations?.some((v) => /PerDay/i.test(`${v.quotaId ?? ''} ${v.quotaMetric ?? ''}`)));
  return daily || /\blimit: 0\b/.test(message);
}

interface Verdict {
  kind?: ErrorKind;
  retryAfterMs?: number;
}

function judge(status: number, grpcStatus: string, message: string, details: readonly GeminiErrorDetail[]): Verdict {
  const reasons = detailsOfType(details, 'ErrorInfo').map((d) => d.reason ?? '');
  if (reasons.some((r) => KEY_FAILURE_REASONS.has(r)) || /API key (not valid|expired)/i.test(message)) return { kind: 'auth' };
  switch (grpcStatus) {
    case 'UNAUTHENTICATED':
    case 'PERMISSION_DENIED':
      return { kind: 'auth' };
    // Billing not enabled, free tier not offered in this region: this key/project cannot serve.
    case 'FAILED_PRECONDITION':
      return { kind: /billing|free tier|payment/i.test(message) ? 'payment' : 'auth' };
    case 'NOT_FOUND':
      return { kind: 'not-found' };
    case 'RESOURCE_EXHAUSTED': {
      if (isLongQuota(details, message)) return { kind: 'payment' };
      const delay = detailsOfType(details, 'RetryInfo').map((d) => parseProtoDuration(d.retryDelay)).find((ms) => ms !== undefined);
      return { kind: 'rate-limit', retryAfterMs: delay };
    }
    case 'INTERNAL':
      return { kind: 'server' };
    case 'UNAVAILABLE':
      return { kind: 'overloaded' };
    case 'DEADLINE_EXCEEDED':
      return { kind: 'timeout' };
  }
  if (status === 400 || grpcStatus === 'INVALID_ARGUMENT') return { kind: isContextLengthMessage(message) ? 'context-length' : 'bad-request' };
  if (status === 504) return { kind: 'timeout' };
  return {};
}

export interface ErrorSource {
  status: number;
  headers: Record<string, string>;
  /** The parsed body, when it was JSON. */
  json: unknown;
  text: string;
}

/** For failed HTTP answers and for `{error:{…}}` objects that arrive inside an HTTP 200 stream. */
export function geminiError(source: ErrorSource, apiKey?: string): SwitchyardError {
  const error = (source.json as GeminiErrorBody | undefined)?.error;
  const body = typeof error === 'object' && error !== null ? error : undefined;
  const message = redactSecrets(body?.message ?? bodyExcerpt(source.text), [apiKey]);
  const grpcStatus = typeof body?.status === 'string' ? body.status : '';
  const details = Array.isArray(body?.details) ? body.details.filter((d) => typeof d === 'object' && d !== null) : [];
  const verdict = judge(source.status, grpcStatus, message, details);
  return httpError({
    status: source.status,
    headers: source.headers,
    message,
    provider: 'gemini',
    vendorCode: grpcStatus || undefined,
    kind: verdict.kind,
    retryAfterMs: verdict.retryAfterMs,
  });
}
