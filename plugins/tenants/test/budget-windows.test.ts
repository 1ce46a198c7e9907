/** The budget windows, kept between calls: the same answers as a fresh computation at every instant, across resets and a clock that goes back. */
import { describe, expect, it } from 'vitest';
import { counterTtlMs, windowOf, type Period } from '../src/budget-windows.js';

const day = 86_400_000;
const fresh = (period: Period, now: number) => {
  const date = new Date(now);
  const resetsAt = period === 'day' ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1) : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return { period, id: date.toISOString().slice(0, period === 'day' ? 10 : 7), resetsAt };
};

describe('budget windows', () => {
  it('answer as a fresh computation at every instant: within a window, at its last millisecond, past its reset, and back in time', () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 59, 998);
    const instants = [start, start + 1, start + 2, start + 3, start + day * 40, start - 1, start - day * 400, start + 1, Date.UTC(2028, 1, 29, 12)];
    for (const now of instants) {
      for (const period of ['day', 'month'] as const) {
        expect(windowOf(period, now)).toEqual(fresh(period, now));
        expect(counterTtlMs(windowOf(period, now), now)).toBe(fresh(period, now).resetsAt - now + (period === 'day' ? 2 : 35) * day);
      }
    }
  });
});
