import { describe, expect, it } from 'vitest';
import { RequestTimer } from './request-timer.js';
import { seededRandom, sleep, VirtualClock } from './clock.js';
import { MemoryStateStore } from './state-store.js';

describe('VirtualClock', () => {
  it('fires timers in time order and only when due', async () => {
    const clock = new VirtualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => fired.push('a@10'), 10);
    const h = clock.setTimeout(() => fired.push('cancelled'), 15);
    clock.clearTimeout(h);
    await clock.advance(12);
    expect(fired).toEqual(['a@10']);
    await clock.advance(8);
    expect(fired).toEqual(['a@10', 'b@20']);
    expect(clock.now()).toBe(20);
  });

  it('sleep resolves on virtual time and rejects on abort', async () => {
    const clock = new VirtualClock(0);
    let done = false;
    const s = sleep(clock, 1000).then(() => (done = true));
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await s;
    expect(done).toBe(true);
    const ac = new AbortController();
    const aborted = sleep(clock, 1000, ac.signal).catch((e) => e);
    ac.abort(new Error('stop'));
    expect((await aborted).message).toBe('stop');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('seeded random is deterministic and in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('RequestTimer', () => {
  it('aborts the attempt with the phase kind and keeps one timer armed', async () => {
    const clock = new VirtualClock(0);
    const deadline: string[] = [];
    const timer = new RequestTimer(clock, 100_000, (e) => deadline.push(e.kind));
    const attempt = new AbortController();
    timer.setPhase('first-token', 10_000, attempt);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(9_999);
    expect(attempt.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(attempt.signal.reason.kind).toBe('ttft-timeout');
    expect(clock.pendingTimers()).toBe(1); // re-armed for the request deadline
    await clock.advance(90_000);
    expect(deadline).toEqual(['timeout']);
  });

  it('idle touches push the limit without re-scheduling', async () => {
    const clock = new VirtualClock(0);
    const timer = new RequestTimer(clock, Number.POSITIVE_INFINITY, () => undefined);
    const attempt = new AbortController();
    timer.setPhase('idle', 1000, attempt);
    for (let i = 0; i < 10; i++) {
      await clock.advance(900);
      timer.touch();
      expect(clock.pendingTimers()).toBe(1);
    }
    expect(attempt.signal.aborted).toBe(false);
    await clock.advance(1000);
    expect(attempt.signal.reason.kind).toBe('idle-timeout');
  });

  it('after release, the request deadline no longer cuts a committed stream', async () => {
    const clock = new VirtualClock(0);
    const deadline: string[] = [];
    const timer = new RequestTimer(clock, 5000, (e) => deadline.push(e.kind));
    timer.releaseRequestDeadline();
    await clock.advance(10_000);
    expect(deadline).toEqual([]);
  });
});

describe('MemoryStateStore', () => {
  it('expires values and counters on the clock', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    await store.set('k', 'v', 100);
    expect(await store.increment('n', 2, 100)).toBe(2);
    expect(await store.increment('n', 3)).toBe(5);
    await clock.advance(100);
    expect(await store.get('k')).toBeUndefined();
    expect(await store.increment('n')).toBe(1);
  });

  it('a lease has one holder until it is released or expires', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    expect(await store.acquireLease('probe', 'a', 1000)).toBe(true);
    expect(await store.acquireLease('probe', 'b', 1000)).toBe(false);
    await store.releaseLease('probe', 'b');
    expect(await store.acquireLease('probe', 'b', 1000)).toBe(false);
    await clock.advance(1000);
    expect(await store.acquireLease('probe', 'b', 1000)).toBe(true);
    await store.releaseLease('probe', 'b');
    expect(await store.acquireLease('probe', 'a', 1000)).toBe(true);
  });
});

describe('MemoryStateStore memory', () => {
  it('sweeps expired entries that are never read again', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    for (let i = 0; i < 10_000; i++) {
      await store.increment(`bucket:${i}`, 1, 1000);
      await clock.advance(10);
    }
    // Only the last second of buckets is live; the sweeps keep the rest from piling up.
    expect(store.size()).toBeLessThanOrEqual(101);
    expect((store as unknown as { entries: Map<string, unknown> }).entries.size).toBeLessThan(4096 + 101);
  });
});
