import { describe, expect, it } from 'vitest';
import { MemoryStateStore, VirtualClock, type StateStore } from '@switchyard/core';
import { RESPONSE_STORE_FULL } from './errors.js';
import { StoredBytes } from './stored-bytes.js';

const TTL_MS = 24_000; // one slice a second
const CAPS = { maxBytesPerKey: 1_000, maxBytes: 10_000 };

/** A store shared by two gateways, counting the keys each read asks for. */
function sharedStore(clock: VirtualClock): { store: StateStore; keysRead: number[] } {
  const memory = new MemoryStateStore(clock);
  const keysRead: number[] = [];
  const store = Object.assign(Object.create(memory) as StateStore, {
    getManyNow<T>(keys: readonly string[]): (T | undefined)[] {
      keysRead.push(keys.length);
      return memory.getManyNow<T>(keys);
    },
  });
  return { store, keysRead };
}

const refused = (work: Promise<void>) => work.then(() => 'stored', (error: { code?: string }) => error.code);

describe('StoredBytes', () => {
  it('two gateways on one store see each other’s bytes at once, in the current slice and after it moved on: a cap is never passed', async () => {
    const clock = new VirtualClock();
    const { store } = sharedStore(clock);
    const a = new StoredBytes(store, clock, TTL_MS, CAPS);
    const b = new StoredBytes(store, clock, TTL_MS, CAPS);
    await a.add('k', 600, a.slice());
    await b.add('k', 300, b.slice());
    expect(await refused(a.add('k', 200, a.slice()))).toBe(RESPONSE_STORE_FULL);
    await clock.advance(5_000);
    await a.add('k', 50, a.slice());
    expect(await refused(b.check('k', 100))).toBe(RESPONSE_STORE_FULL);
    expect(await refused(b.check('k', 50))).toBe('stored');
    // Another key has its own allowance.
    await b.add('other', 900, b.slice());
  });

  it('a delete on one gateway frees the room on the other at once, though the bytes were in an older slice', async () => {
    const clock = new VirtualClock();
    const { store } = sharedStore(clock);
    const a = new StoredBytes(store, clock, TTL_MS, CAPS);
    const b = new StoredBytes(store, clock, TTL_MS, CAPS);
    const first = a.slice();
    await a.add('k', 900, first);
    await clock.advance(5_000);
    // Both have summed the older slices for this one.
    await a.check('k', 50);
    expect(await refused(b.check('k', 200))).toBe(RESPONSE_STORE_FULL);
    await b.remove('k', 900, first);
    await a.check('k', 900);
    await b.check('k', 900);
  });

  it('bytes leave the sums once their slice is a TTL old', async () => {
    const clock = new VirtualClock();
    const { store } = sharedStore(clock);
    const a = new StoredBytes(store, clock, TTL_MS, CAPS);
    await a.add('k', 900, a.slice());
    // Counted while its slice is one of the last 25, whichever of them (the last two are read, the older summed once).
    for (let second = 1; second < 25; second++) {
      await clock.advance(1_000);
      expect(await refused(a.check('k', 200)), `after ${second} s`).toBe(RESPONSE_STORE_FULL);
      expect(await refused(a.check('k', 200)), `after ${second} s, again`).toBe(RESPONSE_STORE_FULL);
    }
    await clock.advance(1_000);
    await a.check('k', 900);
  });

  it('reads every slice once per slice and per delete; otherwise the last two and the removals counter', async () => {
    const clock = new VirtualClock();
    const { store, keysRead } = sharedStore(clock);
    const a = new StoredBytes(store, clock, TTL_MS, CAPS);
    await a.check('k', 1);
    await a.add('k', 10, a.slice());
    await a.check('k', 1);
    expect(keysRead).toEqual([51, 5, 5]);
    await a.remove('k', 10, a.slice());
    await a.check('k', 1);
    await clock.advance(1_000);
    await a.check('k', 1);
    await a.check('k', 1);
    // After the delete: the last two and the counter (which moved), then every slice; a new slice: every slice at once.
    expect(keysRead.slice(3)).toEqual([5, 51, 51, 5]);
  });
});
