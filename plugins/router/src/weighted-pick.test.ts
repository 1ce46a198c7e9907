import { seededRandom } from '@switchyard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { weightedOrder, weightedPick } from './weighted-pick.js';

describe('weightedPick', () => {
  it('picks each item in proportion to its weight (property, 20 000 picks)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 2, maxLength: 5 }), fc.integer(), (weights, seed) => {
        const random = seededRandom(seed);
        const items = weights.map((w, i) => ({ i, w }));
        const counts = new Array(items.length).fill(0);
        const picks = 20_000;
        for (let n = 0; n < picks; n++) counts[weightedPick(items, (x) => x.w, random)!.i]++;
        const total = weights.reduce((a, b) => a + b, 0);
        for (let i = 0; i < items.length; i++) expect(Math.abs(counts[i] / picks - weights[i] / total)).toBeLessThan(0.02);
      }),
      { numRuns: 25 },
    );
  });

  it('never picks a zero-weight item while a positive one exists', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }), fc.integer(), (weights, seed) => {
        fc.pre(weights.some((w) => w > 0));
        const random = seededRandom(seed);
        const indexes = weights.map((_, i) => i);
        let zeroPicks = 0;
        for (let n = 0; n < 200; n++) if (weights[weightedPick(indexes, (i) => weights[i], random)!] === 0) zeroPicks++;
        expect(zeroPicks).toBe(0);
      }),
    );
  });

  it('picks uniformly when every weight is zero, and nothing from an empty list', () => {
    const random = seededRandom(7);
    const counts = [0, 0, 0];
    for (let n = 0; n < 3000; n++) counts[weightedPick([0, 1, 2], () => 0, random)!]++;
    for (const c of counts) expect(c).toBeGreaterThan(900);
    expect(weightedPick([], () => 1, random)).toBeUndefined();
  });

  it('ignores NaN and negative weights', () => {
    const random = seededRandom(3);
    for (let n = 0; n < 500; n++) expect(weightedPick(['nan', 'neg', 'ok'], (x) => (x === 'nan' ? NaN : x === 'neg' ? -5 : 1), random)).toBe('ok');
  });
});

describe('weightedOrder', () => {
  it('is a permutation with zero weights last, in their given order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 8 }), fc.integer(), (weights, seed) => {
        const items = weights.map((w, i) => ({ i, w }));
        const ordered = weightedOrder(items, (x) => x.w, seededRandom(seed));
        expect([...ordered].sort((a, b) => a.i - b.i)).toEqual(items);
        const zeros = ordered.filter((x) => x.w === 0);
        expect(ordered.slice(ordered.length - zeros.length)).toEqual(items.filter((x) => x.w === 0));
      }),
    );
  });
});
