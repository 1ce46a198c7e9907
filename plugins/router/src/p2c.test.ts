import { seededRandom } from '@switchyard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { p2c } from './p2c.js';

describe('p2c', () => {
  it('never picks the slowest of several distinct loads, and always the faster of two', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 2, maxLength: 8 }), fc.integer(), (loads, seed) => {
        const random = seededRandom(seed);
        const slowest = Math.max(...loads);
        let slowestPicks = 0;
        for (let n = 0; n < 100; n++) if (p2c(loads, (x) => x, random) === slowest) slowestPicks++;
        expect(slowestPicks).toBe(0);
        if (loads.length === 2) expect(p2c(loads, (x) => x, random)).toBe(Math.min(...loads));
      }),
    );
  });

  it('prefers faster endpoints: the k-th fastest of n wins 2(n-k)/(n(n-1)) of picks (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 5_000 }), { minLength: 3, maxLength: 6 }), fc.integer(), (loads, seed) => {
        const random = seededRandom(seed);
        const sorted = [...loads].sort((a, b) => a - b);
        const n = loads.length;
        const counts = new Map<number, number>();
        const picks = 20_000;
        for (let i = 0; i < picks; i++) {
          const picked = p2c(loads, (x) => x, random)!;
          counts.set(picked, (counts.get(picked) ?? 0) + 1);
        }
        sorted.forEach((load, k) => {
          const expected = (2 * (n - 1 - k)) / (n * (n - 1));
          expect(Math.abs((counts.get(load) ?? 0) / picks - expected)).toBeLessThan(0.02);
        });
      }),
      { numRuns: 20 },
    );
  });

  it('draws two distinct items and handles tiny lists', () => {
    expect(p2c([], () => 0, Math.random)).toBeUndefined();
    expect(p2c(['only'], () => 0, Math.random)).toBe('only');
    // random() = 0 for both draws must still compare two different items.
    expect(p2c([5, 1], (x) => x, () => 0)).toBe(1);
    expect(p2c([1, 5], (x) => x, () => 0.999999)).toBe(1);
  });
});
