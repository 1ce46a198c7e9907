import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingWindow } from './sliding-window.js';

describe('SlidingWindow', () => {
  it('counts weighted failures inside the window', () => {
    const w = new SlidingWindow(10_000, 10);
    w.add(0, 0);
    w.add(500, 1);
    w.add(1_500, 0.5);
    expect(w.counts(2_000)).toEqual({ total: 3, failures: 1.5 });
  });

  it('forgets samples once their bucket leaves the window', () => {
    const w = new SlidingWindow(10_000, 10);
    w.add(0, 1);
    w.add(5_000, 1);
    expect(w.counts(9_999).total).toBe(2);
    expect(w.counts(11_000)).toEqual({ total: 1, failures: 1 });
    expect(w.counts(16_000)).toEqual({ total: 0, failures: 0 });
  });

  it('after any idle gap longer than the window plus one bucket, holds only what came after it (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.boolean()), { maxLength: 50 }),
        fc.integer({ min: 12_000, max: 10_000_000 }),
        fc.array(fc.boolean(), { maxLength: 20 }),
        (before, gap, after) => {
          const w = new SlidingWindow(10_000, 5);
          let now = 1_700_000_000_000;
          for (const [step, failed] of before) w.add((now += step), failed ? 1 : 0);
          now += gap;
          for (const failed of after) w.add(now, failed ? 1 : 0);
          expect(w.counts(now)).toEqual({ total: after.length, failures: after.filter(Boolean).length });
        },
      ),
    );
  });
});
