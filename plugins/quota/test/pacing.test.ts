import { describe, expect, it } from 'vitest';
import { pacingPauseMs, quotaOptionsSchema } from '../src/index.js';

const options = quotaOptionsSchema.parse({}).pacing;
if (options === false) throw new Error('pacing is on by default');
const now = Date.UTC(2025, 5, 1, 12, 0, 0);

describe('pacingPauseMs', () => {
  it('reads OpenAI remaining/reset pairs and takes the longer reset of the low dimensions', () => {
    expect(pacingPauseMs({ 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-reset-requests': '1.5s', 'x-ratelimit-remaining-tokens': '999', 'x-ratelimit-reset-tokens': '6m0s' }, now, options)).toBe(60_000);
    expect(pacingPauseMs({ 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-reset-requests': '1.5s', 'x-ratelimit-remaining-tokens': '5000' }, now, options)).toBe(1500);
  });

  it('reads Anthropic remaining counts with RFC 3339 resets', () => {
    const reset = new Date(now + 7_000).toISOString();
    expect(pacingPauseMs({ 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': reset }, now, options)).toBe(7_000);
  });

  it('uses the default pause without a reset header, and nothing when there is room', () => {
    expect(pacingPauseMs({ 'x-ratelimit-remaining-requests': '0' }, now, options)).toBe(1000);
    expect(pacingPauseMs({ 'x-ratelimit-remaining-requests': '40', 'x-ratelimit-remaining-tokens': '2000' }, now, options)).toBeUndefined();
    expect(pacingPauseMs({}, now, options)).toBeUndefined();
    expect(pacingPauseMs(undefined, now, options)).toBeUndefined();
  });
});
