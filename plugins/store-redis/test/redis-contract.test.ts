/** The contract holds for Redis: two stores on two connections are two gateway instances. */
import { createRedisStore } from '../src/index.js';
import { deleteKeys, describeWithRedis, inspector, REDIS_URL, sleep, uniquePrefix } from './support/redis.js';
import { stateStoreContract } from './support/state-store-contract.js';

describeWithRedis('RedisStateStore', () => {
  stateStoreContract('RedisStateStore', async () => {
    const prefix = uniquePrefix('contract');
    const store = createRedisStore({ url: REDIS_URL, prefix });
    const peer = createRedisStore({ url: REDIS_URL, prefix });
    await Promise.all([store.ready(), peer.ready()]);
    return {
      store,
      peer,
      // Redis keeps time itself: TTLs here are real milliseconds.
      elapse: sleep,
      ttlMs: 120,
      async dispose() {
        const cleaner = inspector();
        await deleteKeys(cleaner, prefix);
        await Promise.all([store.close(), peer.close(), cleaner.quit()]);
      },
    };
  });
});
