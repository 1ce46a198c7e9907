// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { CacheLookup, StaleAnswerOffer } from '@switchyard/contracts';
export { cache, getCacheStats, PLUGIN_NAME, type CacheStats } from './cache-plugin.js';
export { cache as default } from './cache-plugin.js';
export { cacheKey, normaliseRequest } from './cache-key.js';
export { cacheScope, type CacheShare } from './cache-scope.js';
export { MemoryResponseStore, StateStoreResponseStore, type CacheEntry, type ResponseStore } from './response-store.js';
export { STALE_ANSWER_SLOT, type StaleAnswerSlot } from './stale-answer.js';
export { cacheOptionsSchema, type CacheOptions, type CacheOptionsInput } from './options.js';
