/** Options of the Redis store, validated when the store is created. */
import { SwitchyardError } from '@switchyard/core';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { redactUrl } from './redact-url.js';

export const redisStoreOptionsSchema = z
  .object({
    /** `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS). */
    url: z.string().min(1).optional(),
    /**
     * Sentinel: the primary named `name`, found through these sentinels (`redis://[user:password@]host:port`,
     * their credentials are the sentinels'); `url` gives the primary's user, password, database and
     * TLS (`rediss://user:password@/0`, no host).
     */
    sentinel: z
      .object({ name: z.string().min(1), nodes: z.array(z.string().min(1)).min(1), url: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** Cluster: some of its nodes (`redis[s]://[user:password@]host:port`); the rest are discovered. */
    cluster: z
      .object({ nodes: z.array(z.string().min(1)).min(1) })
      .strict()
      .optional(),
    /** An ioredis client you own: the store uses it and never quits it. */
    client: z.custom<Redis>((value) => typeof value === 'object' && value !== null && typeof (value as Redis).evalsha === 'function', 'must be an ioredis client').optional(),
    /** Prepended to every key, so several deployments can share one Redis. */
    prefix: z.string().default('switchyard:'),
    /** A command that has not answered by then counts as Redis being unavailable. */
    commandTimeoutMs: z.number().int().min(1).max(60_000).default(500),
    /** How long the first connection (and `ready()`) may take. */
    connectTimeoutMs: z.number().int().min(1).max(60_000).default(2_000),
    /** After a timeout, operations skip Redis for this long before trying it again. */
    recheckMs: z.number().int().min(0).max(600_000).default(1_000),
    /** `local`: serve from this instance's memory while Redis is unavailable; `throw`: reject with a coded error. */
    whenUnavailable: z.enum(['local', 'throw']).default('local'),
    /**
     * Whether this Redis may keep durable records (virtual keys, spend, stored Responses) when
     * the gateway keeps them here (no `records.use`): `check` reads CONFIG GET appendonly / save
     * at start and refuses a Redis that persists nothing, or one that refuses CONFIG; `trust`
     * skips the check (a managed Redis with persistence, or a test server that opts out).
     */
    durableRedis: z.enum(['check', 'trust']).default('check'),
    /** Told once per outage (and about each command Redis rejects); defaults to a process warning. */
    onError: z.custom<(error: SwitchyardError) => void>((value) => typeof value === 'function', 'must be a function').optional(),
  })
  .strict()
  .refine((o) => [o.url, o.client, o.sentinel, o.cluster].filter((v) => v !== undefined).length === 1, { message: 'give exactly one of url, client, sentinel or cluster', path: ['url'] });

export type RedisStoreOptions = z.output<typeof redisStoreOptionsSchema>;
export type RedisStoreOptionsInput = z.input<typeof redisStoreOptionsSchema>;

export function parseRedisStoreOptions(input: RedisStoreOptionsInput): RedisStoreOptions {
  const result = redisStoreOptionsSchema.safeParse(input ?? {});
  if (result.success) {
    if (result.data.url !== undefined) checkRedisUrl(result.data.url);
    for (const node of result.data.sentinel?.nodes ?? []) checkRedisUrl(node, 'sentinel.nodes');
    for (const node of result.data.cluster?.nodes ?? []) checkRedisUrl(node, 'cluster.nodes');
    if (result.data.sentinel?.url !== undefined) checkRedisUrl(result.data.sentinel.url.replace(/@\//, '@sentinel/').replace(/^(rediss?:\/\/)\//, '$1sentinel/'), 'sentinel.url');
    return result.data;
  }
  const first = result.error.issues[0];
  const field = first?.path.length ? first.path.join('.') : '(options)';
  const detail = result.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ');
  throw new SwitchyardError('config', `@switchyard/store-redis: invalid option ${field}: ${detail}`, { code: 'SWITCHYARD_ERR_STORE_OPTIONS', path: field });
}

/** Rejects what ioredis would misread (it falls back to localhost:6379 on most garbage). */
export function checkRedisUrl(url: string, path = 'url'): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // fall through with parsed undefined
  }
  const problem = !parsed
    ? 'is not a URL'
    : parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:'
      ? `has scheme "${parsed.protocol.replace(/:$/, '')}", expected redis or rediss`
      : !parsed.hostname
        ? 'names no host'
        : !/^\/?(\d+)?$/.test(parsed.pathname)
          ? `has path "${parsed.pathname}", expected a database number such as /0`
          : undefined;
  if (problem) {
    throw new SwitchyardError('config', `@switchyard/store-redis: ${path} ${redactUrl(url)} ${problem}`, { code: 'SWITCHYARD_ERR_REDIS_URL', path });
  }
}
