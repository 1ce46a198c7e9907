/**
 * Keys written by two gateways at once on one real Redis (.ci/redis.sh, port 6390, a unique
 * prefix): every create is listed, and concurrent changes to one key all apply (compare-and-set
 * on one document per key), so no key is ever half-written or loses a change.
 */
import { afterEach, expect, it } from 'vitest';
import { createRedisStore, type RedisStateStore } from '@switchyard/store-redis';
import { deleteKeys, describeWithRedis, inspector, REDIS_URL, uniquePrefix } from '../../store-redis/test/support/redis.js';
import { rig, type Rig } from './harness.js';

const rigs: Rig[] = [];
const stores: RedisStateStore[] = [];
let prefix = '';

afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.close()));
  await Promise.all(stores.splice(0).map((s) => s.close()));
  const redis = inspector();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

async function gateway(): Promise<Rig> {
  const store = createRedisStore({ url: REDIS_URL, prefix });
  stores.push(store);
  await store.ready();
  const r = await rig({}, { store });
  rigs.push(r);
  return r;
}

describeWithRedis('keys written concurrently by two gateways on one Redis', () => {
  it('lists every key created on either and applies every concurrent change to each', { timeout: 30_000 }, async () => {
    prefix = uniquePrefix('tenants-keys');
    const a = await gateway();
    const b = await gateway();
    const made = await Promise.all(Array.from({ length: 24 }, (_v, i) => (i % 2 ? a : b).admin('POST', '/switchyard/keys', { name: `k${i}`, team: 't' })));
    const ids = made.map((m) => m.body.key.id as string);
    expect(new Set((await a.admin('GET', '/switchyard/keys')).body.keys.map((k: { id: string }) => k.id))).toEqual(new Set(ids));

    // On every key at once: one gateway revokes it, the other sets its owner and budget.
    await Promise.all(ids.flatMap((id, i) => [a.admin('POST', `/switchyard/keys/${id}/revoke`, {}), b.admin('PATCH', `/switchyard/keys/${id}`, { owner: `owner-${i}`, budget: { month: { limitUsd: i + 1 } } })]));
    const listed = new Map<string, any>((await b.admin('GET', '/switchyard/keys')).body.keys.map((k: { id: string }) => [k.id, k]));
    ids.forEach((id, i) => expect(listed.get(id)).toMatchObject({ name: `k${i}`, team: 't', owner: `owner-${i}`, status: 'revoked', budget: { month: { limitUsd: i + 1 } } }));
    // Revoked on both gateways, whichever wrote last.
    for (const m of made) {
      expect(await a.authenticate(m.body.secret)).toBeUndefined();
      expect(await b.authenticate(m.body.secret)).toBeUndefined();
    }
  });
});
