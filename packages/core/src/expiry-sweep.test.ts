import { describe, expect, it } from 'vitest';
import { ExpirySweep } from './expiry-sweep.js';

describe('ExpirySweep', () => {
  it('forgets expired entries as entries are added, never looking at more than a slice in one addition', () => {
    const entries = new Map<string, number>();
    let now = 0;
    let looked = 0;
    const sweep = new ExpirySweep(entries, (expiresAt: number, at) => (looked++, expiresAt <= at), () => now);
    // A million-answer store in miniature: 20 000 entries, every other one expiring at 100.
    for (let i = 0; i < 20_000; i++) entries.set(`k${i}`, i % 2 === 0 ? 100 : Number.POSITIVE_INFINITY);
    now = 200;
    let most = 0;
    let writes = 0;
    const expiredLeft = () => [...entries.values()].some((expiresAt) => expiresAt <= now);
    while (writes < 10_000 && (writes % 64 !== 0 || expiredLeft())) {
      looked = 0;
      entries.set(`new${writes++}`, Number.POSITIVE_INFINITY);
      sweep.added();
      most = Math.max(most, looked);
    }
    // 10 000 expired among 20 000 at eight looked at an addition: all gone after one pass over them, 2 500 additions, a slice at a time.
    expect(expiredLeft()).toBe(false);
    expect(writes).toBeLessThanOrEqual(2_560);
    expect(most).toBeLessThanOrEqual(512);
    expect(entries.size).toBe(10_000 + writes);
  });

  it('walks a small map at most once a slice, and counts additions given together', () => {
    const entries = new Map([['a', 1]]);
    let looked = 0;
    const sweep = new ExpirySweep(entries, () => (looked++, false), () => 0);
    sweep.added(63);
    expect(looked).toBe(0);
    sweep.added(1);
    expect(looked).toBe(1);
    sweep.added(640);
    expect(looked).toBe(2);
  });
});
