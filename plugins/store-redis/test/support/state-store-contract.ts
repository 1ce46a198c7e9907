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
