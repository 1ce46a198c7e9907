import { describe, expect, it } from 'vitest';
import { httpError, SwitchyardError } from '@switchyard/core';
import { retryDelayFromError } from './retry-after.js';

const now = Date.parse('2025-01-01T00:00:00Z');

describe('retryDelayFromError', () => {
  it('prefers the delay the provider already parsed (Gemini RetryInfo, x-ratelimit-reset)', () => {
    const err = new SwitchyardError('rate-limit', 'slow down', { retryAfterMs: 34_400, headers: { 'retry-after': '1' } });
    expect(retryDelayFromError(err, now)).toBe(34_400);
  });

  it('falls back to the raw headers: seconds, HTTP-date, retry-after-ms, x-ratelimit-reset-*', () => {
    const make = (headers: Record<string, string>) => new SwitchyardError('rate-limit', 'x', { headers });
    expect(retryDelayFromError(make({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryDelayFromError(make({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }), now)).toBe(7000);
    expect(retryDelayFromError(make({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryDelayFromError(make({ 'x-ratelimit-reset-requests': '1m30s', 'x-ratelimit-reset-tokens': '6s' }), now)).toBe(6000);
  });

  it('reads what httpError parsed from a real 429', () => {
    const err = httpError({ status: 429, headers: { 'retry-after': '3' }, message: 'rate limited', now });
    expect(retryDelayFromError(err, now)).toBe(3000);
  });

  it('is undefined when nothing says when, or the value is garbage', () => {
    expect(retryDelayFromError(new SwitchyardError('server', 'boom'), now)).toBeUndefined();
    expect(retryDelayFromError(new SwitchyardError('rate-limit', 'x', { headers: { 'retry-after': 'soon' } }), now)).toBeUndefined();
    expect(retryDelayFromError(new SwitchyardError('rate-limit', 'x', { retryAfterMs: Number.NaN }), now)).toBeUndefined();
    expect(retryDelayFromError(new Error('plain'), now)).toBeUndefined();
  });
});
