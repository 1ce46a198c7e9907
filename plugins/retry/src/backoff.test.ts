import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { seededRandom } from '@switchyard/core';
import { computeBackoff, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';

const draws = (attempt: number, opts: BackoffOptions, n = 2000, seed = 7) => {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => computeBackoff(attempt, opts, random));
};

describe('computeBackoff levels', () => {
  it('first retry is a quick jittered probe between 100 and 500 ms', () => {
    const d = draws(1, DEFAULT_BACKOFF);
    expect(Math.min(...d)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...d)).toBeLessThanOrEqual(500);
    expect(Math.max(...d) - Math.min(...d)).toBeGreaterThan(300);
  });

  it('full jitter: later retries spread up to base·2^(n−2), never below the probe floor', () => {
    for (const [attempt, ceiling] of [[2, 1000], [3, 2000], [4, 4000], [5, 8000]] as const) {
      const d = draws(attempt, DEFAULT_BACKOFF);
      expect(Math.min(...d)).toBeGreaterThanOrEqual(100);
      expect(Math.max(...d)).toBeLessThanOrEqual(ceiling);
      expect(Math.max(...d)).toBeGreaterThan(ceiling * 0.95);
    }
  });

  it('full jitter keeps its jitter at the cap', () => {
    const d = draws(40, DEFAULT_BACKOFF);
    expect(Math.max(...d)).toBeLessThanOrEqual(DEFAULT_BACKOFF.capMs);
    expect(Math.max(...d) - Math.min(...d)).toBeGreaterThan(DEFAULT_BACKOFF.capMs * 0.8);
  });

  it('decorrelated jitter walks from the previous delay and stays jittered at the cap', () => {
    const opts: BackoffOptions = { ...DEFAULT_BACKOFF, jitter: 'decorrelated' };
    const random = seededRandom(3);
    const next = computeBackoff(2, opts, random, 2000);
    expect(next).toBeGreaterThanOrEqual(1000);
    expect(next).toBeLessThanOrEqual(6000);
    const atCap = Array.from({ length: 2000 }, () => computeBackoff(9, opts, random, opts.capMs));
    expect(Math.max(...atCap)).toBeLessThanOrEqual(opts.capMs);
    expect(Math.min(...atCap)).toBeGreaterThanOrEqual(opts.baseMs);
    // Values past the cap are redrawn in its upper half, never pinned to the cap itself.
    expect(atCap.filter((x) => x === opts.capMs)).toHaveLength(0);
    expect(atCap.filter((x) => x >= opts.capMs / 2).length).toBeGreaterThan(1000);
    expect(new Set(atCap.map((x) => Math.round(x))).size).toBeGreaterThan(500);
  });

  it('survives a random source that returns garbage', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1, 1, 2]) {
      for (const jitter of ['full', 'decorrelated'] as const) {
        const v = computeBackoff(5, { ...DEFAULT_BACKOFF, jitter }, () => bad, Number.NaN);
        expect(Number.isFinite(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(DEFAULT_BACKOFF.capMs);
      }
    }
  });
});

const optionsArb = fc
  .record({
    jitter: fc.constantFrom('full' as const, 'decorrelated' as const),
    probeMinMs: fc.integer({ min: 0, max: 1000 }),
    probeSpan: fc.integer({ min: 0, max: 1000 }),
    baseMs: fc.integer({ min: 1, max: 5000 }),
    capExtra: fc.integer({ min: 0, max: 120_000 }),
  })
  .map(({ jitter, probeMinMs, probeSpan, baseMs, capExtra }) => ({ jitter, probeMinMs, probeMaxMs: probeMinMs + probeSpan, baseMs, capMs: baseMs + capExtra }));

describe('computeBackoff properties', () => {
  it('is finite, non-negative and bounded over 10 000 consecutive retries', () => {
    fc.assert(
      fc.property(optionsArb, fc.integer(), (opts, seed) => {
        const random = seededRandom(seed);
        const bound = Math.max(opts.capMs, opts.probeMaxMs);
        let previous: number | undefined;
        for (let attempt = 1; attempt <= 10_000; attempt++) {
          const d = computeBackoff(attempt, opts, random, previous);
          if (!Number.isFinite(d) || d < 0 || d > bound) return false;
          previous = d;
        }
        return true;
      }),
      { numRuns: 40 },
    );
  });

  it('keeps jitter at the cap: deep retries never collapse to one constant value', () => {
    fc.assert(
      fc.property(optionsArb.filter((o) => o.capMs >= 100 && o.capMs > o.probeMinMs * 2), fc.integer(), (opts, seed) => {
        const random = seededRandom(seed);
        const values = Array.from({ length: 200 }, (_, i) => computeBackoff(60 + i, opts, random, opts.capMs));
        const spread = Math.max(...values) - Math.min(...values);
        return spread >= opts.capMs * 0.2;
      }),
      { numRuns: 200 },
    );
  });
});
