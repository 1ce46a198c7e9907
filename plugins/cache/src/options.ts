import { z } from 'zod';

export const cacheOptionsSchema = z
  .object({
    /** How long an answer is served as a cache hit. */
    ttlMs: z.number().int().positive().default(300_000),
    /** How long after expiry an answer may still be served when every candidate failed (0: never). */
    staleTtlMs: z.number().int().nonnegative().default(3_600_000),
    /** In-memory bound on the number of answers (least recently used go first). */
    maxEntries: z.number().int().positive().default(1000),
    /** In-memory bound on the answers' JSON size in bytes. */
    maxBytes: z.number().int().positive().default(50 * 1024 * 1024),
    /**
     * `memory` (LRU, per process) or `state-store` (the pipeline's StateStore, shared; TTL-bound only);
     * `redis` is `state-store` spelled for a config whose `store:` is @switchyard/store-redis.
     */
    store: z.enum(['memory', 'state-store', 'redis']).default('memory'),
    storePrefix: z.string().min(1).default('cache'),
    /** Who may read an answer another caller stored: the same gateway key (default), its team, or everyone. */
    share: z.enum(['key', 'team', 'global']).default('key'),
  })
  .strict();

export type CacheOptions = z.output<typeof cacheOptionsSchema>;
export type CacheOptionsInput = z.input<typeof cacheOptionsSchema>;
