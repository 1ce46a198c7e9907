import { describe, expect, it } from 'vitest';
import { PeakEwmaTracker } from './peak-ewma-tracker.js';

const MINUTE = 60_000;
const tracker = () => new PeakEwmaTracker({ decayMs: 10_000, defaultRttMs: 1_000, failurePenaltyMs: 5_000 });

describe('PeakEwmaTracker in flight', () => {
  it('counts a request from its start until it ends', () => {
    const t = tracker();
    t.started('a', 'r1', 0);
    t.started('a', 'r1', 5); // the attempt's own start: still one request
    t.started('a', 'r2', 10);
    expect(t.pending('a', 20)).toBe(2);
    t.ended('r1');
    expect(t.pending('a', 30)).toBe(1);
    expect(t.pending('b', 30)).toBe(0);
  });

  it('stops counting a request whose outcome never came after ten minutes, the oldest first', () => {
    const t = tracker();
    t.started('a', 'lost', 0);
    t.started('a', 'later', 4 * MINUTE);
    expect(t.pending('a', 10 * MINUTE)).toBe(2);
    expect(t.pending('a', 10 * MINUTE + 1)).toBe(1);
    expect(t.pending('a', 14 * MINUTE + 1)).toBe(0);
  });

  it('counts a request again from its new start after a retry', () => {
    const t = tracker();
    t.started('a', 'r1', 0);
    t.started('a', 'r2', MINUTE);
    t.finished('a', 'r1');
    t.started('a', 'r1', 2 * MINUTE);
    // r2 is now the oldest: it expires first, and r1 counts from its second start.
    expect(t.pending('a', 11 * MINUTE + 1)).toBe(1);
    expect(t.pending('a', 12 * MINUTE + 1)).toBe(0);
  });
});
