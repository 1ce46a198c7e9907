/**
 * Redis stores a gateway test opens on the real Redis (.ci/redis.sh, port 6390), all under the
 * test's own key prefix: closed, and their keys deleted, after each test.
 */
import { afterEach } from 'vitest';
import { createRedisStore, type RedisStateStore } from '@switchyard/store-redis';
import { deleteKeys, inspector, REDIS_URL, uniquePrefix } from '../../../../plugins/store-redis/test/support/redis.js';
import { stopAll } from './harness.js';

export interface RedisStores {
  /** A fresh prefix for this test (call at its start): every store it opens shares it. */
  usePrefix(name: string): string;
  readonly prefix: string;
  /** A store on the test's prefix, ready. */
  open(): Promise<RedisStateStore>;
}

/** Registers the cleanup (gateways and vendors stopped, stores closed, keys deleted) for every test of the file. */
export function redisStoresPerTest(): RedisStores {
  const stores: RedisStateStore[] = [];
  let prefix = '';
  afterEach(async () => {
    await stopAll();
    await Promise.all(stores.splice(0).map((s) => s.close()));
    const redis = inspector();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });
  return {
    usePrefix(name) {
      prefix = uniquePrefix(name);
      return prefix;
    },
    get prefix() {
      return prefix;
    },
    async open() {
      // Generous command timeout: these tests assert what is stored, not how fast; under CI load a
      // 1 MB write took more than the 500 ms default, the store answered locally and the test saw
      // a response "not found". Tests of Redis stalls open their own stores with short timeouts.
      const store = createRedisStore({ url: REDIS_URL, prefix, commandTimeoutMs: 10_000 });
      stores.push(store);
      await store.ready();
      return store;
    },
  };
}
