/**
 * The behaviour every StateStore owes the policies that share it, run against
 * MemoryStateStore (virtual time) and RedisStateStore (a real Redis, real time).
 */
import type { StateStore } from '@switchyard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface ContractSubject {
  store: StateStore;
  /** The same shared state seen from another gateway instance (its own connection). */
  peer: StateStore;
  /** Lets at least `ms` pass on the store's clock. */
  elapse(ms: number): Promise<void>;
  /** A TTL long enough that the few operations around it always finish well inside it. */
  ttlMs: number;
  dispose(): Promise<void>;
}

export function stateStoreContract(name: string, setup: () => Promise<ContractSubject>): void {
  describe(`StateStore contract: ${name}`, () => {
    let s: ContractSubject;
    beforeEach(async () => {
      s = await setup();
    });
    afterEach(async () => {
      await s.dispose();
    });

    describe('values', () => {
      it('reads a missing key as undefined', async () => {
        expect(await s.store.get('missing')).toBeUndefined();
      });

      it('reads several keys at once, in order, missing and expired ones as undefined', async () => {
        await s.store.set('one', { n: 1 });
        await s.store.set('two', 'zwei');
        await s.store.set('short', 1, s.ttlMs);
        await s.elapse(s.ttlMs + 50);
        expect(await s.peer.getMany!(['two', 'missing', 'one', 'short'])).toEqual(['zwei', undefined, { n: 1 }, undefined]);
        expect(await s.peer.getMany!([])).toEqual([]);
      });

      it('round-trips JSON values and shares them with the peer', async () => {
        const record = { state: 'open', consecutiveFailures: 3, buckets: [{ start: 0, successes: 1, failures: 2 }], openUntil: 1_700_000_005_000, forced: false, note: null };
        await s.store.set('breaker', record);
        await s.store.set('text', 'ünïcode ✓');
        await s.store.set('flag', true);
        await s.store.set('zero', 0);
        expect(await s.peer.get('breaker')).toEqual(record);
        expect(await s.peer.get('text')).toBe('ünïcode ✓');
        expect(await s.peer.get('flag')).toBe(true);
        expect(await s.peer.get('zero')).toBe(0);
      });

      it('overwrites and deletes', async () => {
        await s.store.set('k', 'first');
        await s.peer.set('k', 'second');
        expect(await s.store.get('k')).toBe('second');
        await s.store.delete('k');
        expect(await s.peer.get('k')).toBeUndefined();
        await s.store.delete('never-set');
      });

      it('forgets a value after its TTL and keeps one without a TTL', async () => {
        await s.store.set('short', 'v', s.ttlMs);
        await s.store.set('forever', 'v');
        expect(await s.peer.get('short')).toBe('v');
        await s.elapse(s.ttlMs * 1.5);
        expect(await s.peer.get('short')).toBeUndefined();
        expect(await s.peer.get('forever')).toBe('v');
      });

      it('a set without TTL drops an earlier TTL; a TTL of 0 leaves nothing', async () => {
        await s.store.set('k', 'v', s.ttlMs);
        await s.store.set('k', 'kept');
        await s.store.set('gone', 'v', 0);
        await s.elapse(s.ttlMs * 1.5);
        expect(await s.store.get('k')).toBe('kept');
        expect(await s.store.get('gone')).toBeUndefined();
      });
    });

    describe('counters', () => {
      it('start at 0, add 1 by default or any amount, and read as numbers', async () => {
        expect(await s.store.increment('c')).toBe(1);
        expect(await s.peer.increment('c', 4)).toBe(5);
        expect(await s.store.increment('c', -1.5)).toBe(3.5);
        expect(await s.peer.get('c')).toBe(3.5);
      });

      it('count a key that holds no number from 0', async () => {
        await s.store.set('c', { not: 'a number' });
        expect(await s.store.increment('c', 2)).toBe(2);
        await s.store.set('s', 'seven');
        expect(await s.store.increment('s')).toBe(1);
      });

      it('expire with their TTL and start again at 0', async () => {
        await s.store.increment('c', 1, s.ttlMs);
        expect(await s.store.increment('c', 1, s.ttlMs)).toBe(2);
        await s.elapse(s.ttlMs * 1.5);
        expect(await s.store.get('c')).toBeUndefined();
        expect(await s.store.increment('c')).toBe(1);
      });

      it('keep the current expiry when an increment gives no TTL', async () => {
        await s.store.increment('c', 1, s.ttlMs);
        await s.elapse(s.ttlMs / 3);
        expect(await s.peer.increment('c')).toBe(2);
        await s.elapse(s.ttlMs);
        expect(await s.store.get('c')).toBeUndefined();
      });

      it('take a new expiry from an increment that gives one', async () => {
        await s.store.increment('c', 1, s.ttlMs);
        await s.elapse(s.ttlMs / 2);
        await s.peer.increment('c', 1, s.ttlMs * 2);
        await s.elapse(s.ttlMs);
        expect(await s.store.get('c')).toBe(2);
      });

      it('never lose an update under 200 concurrent increments from two instances', async () => {
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? s.store : s.peer).increment('hits', 1, 60_000)));
        expect(await s.store.get('hits')).toBe(200);
        // Each increment saw its own total: none read a stale value.
        expect(new Set(results).size).toBe(200);
        expect(Math.max(...results)).toBe(200);
      });
    });

    describe('compare-and-set', () => {
      /** The store under test has the optional method: the contract requires it of both. */
      const cas = (store: StateStore) => store.compareAndSet!.bind(store);

      it('writes only while the key holds the expected value; undefined expects no key', async () => {
        expect(await cas(s.store)('k', undefined, { n: 1 })).toBe(true);
        expect(await cas(s.peer)('k', undefined, { n: 9 })).toBe(false);
        expect(await cas(s.peer)('k', { n: 2 }, { n: 9 })).toBe(false);
        expect(await cas(s.peer)('k', await s.peer.get('k'), { n: 2 })).toBe(true);
        expect(await s.store.get('k')).toEqual({ n: 2 });
      });

      it('compares the JSON of what get returned, for every kind of value', async () => {
        const record = { state: 'open', consecutiveFailures: 3, buckets: [{ start: 0, successes: 1, failures: 2 }], openUntil: 1_700_000_005_123.25, note: null, text: 'ünïcode ✓' };
        for (const [key, value] of [['record', record], ['text', 'v'], ['zero', 0], ['flag', false]] as const) {
          await s.store.set(key, value);
          expect(await cas(s.peer)(key, await s.peer.get(key), 'replaced')).toBe(true);
          expect(await s.store.get(key)).toBe('replaced');
        }
      });

      it('takes a TTL like set: kept until it passes, none without one, 0 or undefined deletes', async () => {
        await cas(s.store)('short', undefined, 'v', s.ttlMs);
        await cas(s.store)('forever', undefined, 'v', s.ttlMs);
        await cas(s.store)('forever', 'v', 'kept');
        await s.store.set('zero', 'v');
        expect(await cas(s.store)('zero', 'v', 'w', 0)).toBe(true);
        await s.store.set('gone', 'v');
        expect(await cas(s.store)('gone', 'v', undefined)).toBe(true);
        expect(await s.peer.get('short')).toBe('v');
        await s.elapse(s.ttlMs * 1.5);
        expect(await s.peer.get('short')).toBeUndefined();
        expect(await s.peer.get('forever')).toBe('kept');
        expect(await s.peer.get('zero')).toBeUndefined();
        expect(await s.peer.get('gone')).toBeUndefined();
        // An expired key is absent again.
        expect(await cas(s.peer)('short', 'v', 'w')).toBe(false);
        expect(await cas(s.peer)('short', undefined, 'w')).toBe(true);
      });

      it('never lose an update when 100 read-modify-write loops on two instances race', async () => {
        let refused = 0;
        const bump = async (store: StateStore) => {
          for (;;) {
            const seen = await store.get<{ n: number; by: string[] }>('counter');
            const next = { n: (seen?.n ?? 0) + 1, by: [...(seen?.by ?? []), store === s.store ? 'a' : 'b'].slice(-3) };
            if (await cas(store)('counter', seen, next, 60_000)) return;
            refused++;
          }
        };
        await Promise.all(Array.from({ length: 100 }, (_, i) => bump(i % 2 ? s.store : s.peer)));
        expect(await s.store.get('counter')).toMatchObject({ n: 100 });
        // The loops really did collide: a store that ignored `expected` would have lost counts here.
        expect(refused).toBeGreaterThan(0);
      });
    });

    describe('leases', () => {
      it('go to one holder at a time; the holder may take it again', async () => {
        expect(await s.store.acquireLease('probe', 'a', 60_000)).toBe(true);
        expect(await s.peer.acquireLease('probe', 'b', 60_000)).toBe(false);
        expect(await s.store.acquireLease('probe', 'a', 60_000)).toBe(true);
        expect(await s.store.get('probe')).toBe('a');
      });

      it('are released only by their holder', async () => {
        await s.store.acquireLease('probe', 'a', 60_000);
        await s.peer.releaseLease('probe', 'b');
        expect(await s.peer.acquireLease('probe', 'b', 60_000)).toBe(false);
        await s.store.releaseLease('probe', 'a');
        expect(await s.peer.acquireLease('probe', 'b', 60_000)).toBe(true);
        await s.store.releaseLease('probe', 'a');
        expect(await s.store.acquireLease('probe', 'a', 60_000)).toBe(false);
      });

      it('go to exactly one of many concurrent contenders', async () => {
        const wins = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? s.store : s.peer).acquireLease('probe', `holder-${i}`, 60_000)));
        expect(wins.filter(Boolean)).toHaveLength(1);
      });

      it('expire, so a holder that never releases does not block the others', async () => {
        expect(await s.store.acquireLease('probe', 'a', s.ttlMs)).toBe(true);
        expect(await s.peer.acquireLease('probe', 'b', s.ttlMs)).toBe(false);
        await s.elapse(s.ttlMs * 1.5);
        expect(await s.peer.acquireLease('probe', 'b', s.ttlMs)).toBe(true);
        expect(await s.store.acquireLease('probe', 'a', s.ttlMs)).toBe(false);
      });

      it('are extended when their holder takes them again', async () => {
        await s.store.acquireLease('probe', 'a', s.ttlMs);
        await s.elapse(s.ttlMs / 2);
        expect(await s.store.acquireLease('probe', 'a', s.ttlMs * 2)).toBe(true);
        await s.elapse(s.ttlMs);
        expect(await s.peer.acquireLease('probe', 'b', s.ttlMs)).toBe(false);
      });
    });
  });
}
