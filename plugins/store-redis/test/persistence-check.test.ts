/**
 * Durable records kept in Redis alone: the store refuses a Redis that persists nothing, or
 * that refuses CONFIG, unless the operator vouches for it (durableRedis: trust). Runs on a
 * redis-server of the test's own (the shared one on 6390 persists nothing on purpose).
 */
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { createRedisStore, type RedisStateStore } from '../src/index.js';
import { describeWithRedis, hasRedisServer, OwnRedisServer } from './support/redis.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function store(url: string, extra: Record<string, unknown> = {}): RedisStateStore {
  const s = createRedisStore({ url, onError: () => undefined, ...extra });
  cleanups.push(() => s.close());
  return s;
}

describeWithRedis('the persistence check', () => {
  it.skipIf(!hasRedisServer())('refuses a Redis without persistence naming the setting, accepts it with appendonly on, and trusts when told', async () => {
    const server = await OwnRedisServer.start();
    cleanups.push(() => server.close());
    await expect(store(server.url).assertDurable()).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_REDIS_NOT_DURABLE', path: 'appendonly', message: expect.stringContaining('appendonly no') });
    await expect(store(server.url, { durableRedis: 'trust' }).assertDurable()).resolves.toBeUndefined();
    const admin = new Redis(server.url);
    cleanups.push(async () => admin.disconnect());
    await admin.config('SET', 'appendonly', 'yes');
    await expect(store(server.url).assertDurable()).resolves.toBeUndefined();
    // A managed Redis that refuses CONFIG: refused unless trusted.
    await admin.call('ACL', 'SETUSER', 'app', 'on', '>app-password', '~*', '&*', '+@all', '-config');
    const managed = server.url.replace('redis://', 'redis://app:app-password@');
    const refused = await store(managed).assertDurable().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'SWITCHYARD_ERR_REDIS_NOT_DURABLE', path: 'durableRedis' });
    expect((refused as Error).message).not.toContain('app-password');
    await expect(store(managed, { durableRedis: 'trust' }).assertDurable()).resolves.toBeUndefined();
  });
});
