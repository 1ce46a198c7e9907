import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.js';
import { MemoryStateStore, readManyNow, type StateStore } from './state-store.js';

describe('MemoryStateStore.compareAndSet', () => {
  it('writes only while the key holds the expected value, compared as JSON', async () => {
    const store = new MemoryStateStore(new VirtualClock(0));
    expect(await store.compareAndSet('k', undefined, { n: 1 })).toBe(true);
    expect(await store.compareAndSet('k', undefined, { n: 9 })).toBe(false);
    expect(await store.compareAndSet('k', { n: 2 }, { n: 9 })).toBe(false);
    // An equal value read back from elsewhere matches, not only the same object.
    expect(await store.compareAndSet('k', { n: 1 }, { n: 2 })).toBe(true);
    expect(await store.get('k')).toEqual({ n: 2 });
  });

  it('takes a TTL like set, and an expired key counts as absent', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    expect(await store.compareAndSet('k', undefined, 'v', 100)).toBe(true);
    await clock.advance(100);
    expect(await store.get('k')).toBeUndefined();
    expect(await store.compareAndSet('k', 'v', 'w')).toBe(false);
    expect(await store.compareAndSet('k', undefined, 'w')).toBe(true);
    await clock.advance(1_000_000);
    expect(await store.get('k')).toBe('w');
  });

  it('deletes the key when next is undefined', async () => {
    const store = new MemoryStateStore(new VirtualClock(0));
    await store.set('k', 1);
    expect(await store.compareAndSet('k', 1, undefined)).toBe(true);
    expect(await store.get('k')).toBeUndefined();
    expect(store.size()).toBe(0);
  });

  it('loses no update when concurrent read-modify-write loops retry on a refusal', async () => {
    const store = new MemoryStateStore(new VirtualClock(0));
    const bump = async () => {
      for (;;) {
        const seen = await store.get<{ n: number }>('counter');
        if (await store.compareAndSet('counter', seen, { n: (seen?.n ?? 0) + 1 })) return;
      }
    };
    await Promise.all(Array.from({ length: 50 }, bump));
    expect(await store.get('counter')).toEqual({ n: 50 });
  });
});

describe('readManyNow', () => {
  it('answers at once from a MemoryStateStore, expired keys absent', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    await store.set('a', 1);
    await store.set('b', 2, 100);
    await clock.advance(100);
    expect(readManyNow(store, ['a', 'b', 'c'])).toEqual([1, undefined, undefined]);
  });

  it('falls back to a promise from a store without getManyNow', async () => {
    const memory = new MemoryStateStore(new VirtualClock(0));
    await memory.set('a', 'x');
    const remote: StateStore = {
      get: (key) => memory.get(key),
      set: (key, value, ttl) => memory.set(key, value, ttl),
      delete: (key) => memory.delete(key),
      increment: (key, by, ttl) => memory.increment(key, by, ttl),
      acquireLease: (key, holder, ttl) => memory.acquireLease(key, holder, ttl),
      releaseLease: (key, holder) => memory.releaseLease(key, holder),
    };
    const read = readManyNow(remote, ['a', 'b']);
    expect(Array.isArray(read)).toBe(false);
    expect(await read).toEqual(['x', undefined]);
  });
});

describe('MemoryStateStore expiry sweep', () => {
  it('walks the entries as keys are added, never for a write to a key it holds', async () => {
    let reads = 0;
    const clock = new VirtualClock();
    const store = new MemoryStateStore({ now: () => (reads++, clock.now()), setTimeout: (fn, ms) => clock.setTimeout(fn, ms), clearTimeout: (handle) => clock.clearTimeout(handle) });
    await store.set('counter', 0);
    // A request's counters: the same keys incremented again and again (no TTL, so no clock read of their own).
    for (let i = 0; i < 1_000; i++) await store.increment('counter');
    for (let i = 0; i < 1_000; i++) await store.set('settings', { round: i });
    expect(reads).toBe(0);
    // New keys: a slice of the sweep (one clock read) every 64 of them.
    for (let i = 0; i < 128; i++) await store.set(`answer:${i}`, i);
    expect(reads).toBe(2);
    expect(await store.get('counter')).toBe(1_000);
  });
});
