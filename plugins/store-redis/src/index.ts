export { createRedisStore, createRedisStore as default, RedisStateStore } from './redis-store.js';
export { checkRedisUrl, redisStoreOptionsSchema, type RedisStoreOptions, type RedisStoreOptionsInput } from './options.js';
export { redactUrl } from './redact-url.js';
