/** The wait a vendor asked for, from whatever form it arrived in. */
import { isSwitchyardError } from '@switchyard/core';
import { parseRetryAfter } from '@switchyard/core/wire';

/**
 * Milliseconds the vendor asked us to wait, or undefined when it said nothing. Providers
 * already parse `Retry-After` (seconds or HTTP-date), `retry-after-ms`, `x-ratelimit-reset-*`
 * and Gemini `RetryInfo` into `error.retryAfterMs`; the raw headers are the fallback.
 */
export function retryDelayFromError(error: unknown, now: number): number | undefined {
  if (!isSwitchyardError(error)) return undefined;
  const parsed = error.retryAfterMs;
  if (typeof parsed === 'number' && Number.isFinite(parsed) && parsed >= 0) return parsed;
  if (!error.headers) return undefined;
  const fromHeaders = parseRetryAfter(error.headers, now);
  return fromHeaders !== undefined && Number.isFinite(fromHeaders) && fromHeaders >= 0 ? fromHeaders : undefined;
}
