/**
 * Redis Cluster from options (ioredis's own support): two stores stand for two gateways. Reads
 * of many keys across slots, pub/sub between them, and a slot migration (`redis-cli --cluster
 * reshard`) in the middle of their traffic: the two agree exactly before and after.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { createRedisStore, type RedisStateStore } from '../src/index.js';
import { CLUSTER_NODES, describeWithCluster } from './support/redis-ha.js';
import { uniquePrefix } from './support/redis.js';

const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;
const run = promisify(execFile);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function gateway(prefix: string): RedisStateStore {
  // The test cluster persists nothing: opted out of the persistence check.
  const store = createRedisStore({ cluster: { nodes: CLUSTER_NODES }, prefix, durableRedis: 'trust', commandTimeoutMs: 2_000, onError: () => undefined });
  cleanups.push(() => store.close());
  return store;
}

interface Primary {
  id: string;
  address: string;
  slots: number[];
}

/** The primaries with the slots each holds now. */
async function primaries(admin: Cluster): Promise<Primary[]> {
  const ranges = (await admin.cluster('SLOTS')) as unknown as [number, number, [string, number, string]][];
  const byId = new Map<string, Primary>();
  for (const [from, to, [host, port, id]] of ranges) {
    const primary = byId.get(id) ?? { id, address: `${host}:${port}`, slots: [] };
    for (let slot = from; slot <= to; slot++) primary.slots.push(slot);
    byId.set(id, primary);
  }
  return [...byId.values()].sort((a, b) => a.slots[0] - b.slots[0]);
}

describeWithCluster('Redis Cluster', () => {
  it('reads across slots, pub/sub between gateways, and a slot migration mid-traffic: the two agree exactly before and after', { timeout: 90_000 }, async () => {
    const admin = new Cluster(CLUSTER_NODES.map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })));
    cleanups.push(async () => admin.disconnect());
    const prefix = uniquePrefix('cluster');
    const a = gateway(prefix);
    const b = gateway(prefix);
    await Promise.all([a.ready(), b.ready()]);

    // Keys in the slots the reshard below moves (the source's lowest), and keys elsewhere.
    const [source, target] = await primaries(admin);
    const moving = new Set(source.slots.slice(0, 64));
    const keys: string[] = [];
    const movers: string[] = [];
    for (let i = 0; keys.length < 40 || movers.length < 8; i++) {
      const key = `counter:${i}`;
      if (moving.has(calculateSlot(prefix + key))) movers.length < 8 && movers.push(key);
      else if (keys.length < 40) keys.push(key);
    }
    const all = [...keys, ...movers];
    expect(new Set(all.map((k) => calculateSlot(prefix + k))).size).toBeGreaterThan(10);

    // Pub/sub between the two, whatever node each subscriber landed on.
    const heard: unknown[] = [];
    b.subscribe('changes', (message) => heard.push(message));
    await expect.poll(async () => (await a.publish('changes', { id: 'k1' }), heard.length), { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
    expect(heard[0]).toEqual({ id: 'k1' });

    let stop = false;
    let sent = 0;
    let failures = 0;
    const traffic = async (store: RedisStateStore) => {
      for (let i = 0; !stop; i++) {
        try {
          await store.increment(all[i % all.length], 1);
          sent++;
        } catch {
          failures++;
        }
      }
    };
    const running = [traffic(a), traffic(b)];
    await expect.poll(() => sent, { timeout: 10_000 }).toBeGreaterThan(200);
    const before = await a.getMany<number>(all);
    expect(before.some((v) => v === undefined)).toBe(false);

    await run('redis-cli', ['--cluster', 'reshard', source.address, '--cluster-from', source.id, '--cluster-to', target.id, '--cluster-slots', String(moving.size), '--cluster-yes'], { timeout: 60_000 });
    const moved = await primaries(admin);
    for (const key of movers) expect(moved.find((p) => p.slots.includes(calculateSlot(prefix + key)))!.id).toBe(target.id);
    const atMove = sent;
    await expect.poll(() => sent, { timeout: 10_000 }).toBeGreaterThan(atMove + 200);
    stop = true;
    await Promise.all(running);

    expect(failures).toBe(0);
    // Every increment counted once (none answered locally: Redis never went away), and both read the same.
    const [fromA, fromB] = [await a.getMany<number>(all), await b.getMany<number>(all)];
    expect(fromA).toEqual(fromB);
    expect(fromA.reduce((sum, v) => sum! + (v ?? 0), 0)).toBe(sent);
    expect(a.available && b.available).toBe(true);
    // Put the slots back, so the cluster is as the next run expects.
    cleanups.push(() => run('redis-cli', ['--cluster', 'reshard', target.address, '--cluster-from', target.id, '--cluster-to', source.id, '--cluster-slots', String(moving.size), '--cluster-yes'], { timeout: 60_000 }));
  });
});
