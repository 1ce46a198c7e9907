/** What the Redis store writes, and who owns the connection. */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { JsonText } from '@switchyard/core/internal';
import { createRedisStore } from '../src/index.js';
import { deleteKeys, describeWithRedis, inspector, REDIS_URL, uniquePrefix } from './support/redis.js';

describeWithRedis('RedisStateStore on a real Redis', () => {
  let redis: Redis;
  let prefix: string;
  beforeEach(() => {
    redis = inspector();
    prefix = uniquePrefix('store');
  });
  afterEach(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('writes JSON under its prefix, with millisecond TTLs', async () => {
    const store = createRedisStore({ url: REDIS_URL, prefix });
    await store.set('breaker:a/x', { state: 'open', openUntil: 5 }, 30_000);
    await store.increment('quota:k', 2, 10_000);
    await store.increment('forever');
    expect(await redis.get(`${prefix}breaker:a/x`)).toBe('{"state":"open","openUntil":5}');
    expect(await redis.pttl(`${prefix}breaker:a/x`)).toBeGreaterThan(29_000);
    expect(await redis.get(`${prefix}quota:k`)).toBe('2');
    expect(await redis.pttl(`${prefix}quota:k`)).toBeGreaterThan(9_000);
    expect(await redis.pttl(`${prefix}forever`)).toBe(-1);
    await store.close();
  });

  it('writes a value given as JSON text as that text, and reads it back parsed', async () => {
    const store = createRedisStore({ url: REDIS_URL, prefix });
    const text = '{ "answer": "say \\"hi\\"", "n": [1, 2] }';
    await store.set('responses:r1', new JsonText(text), 30_000);
    expect(await redis.get(`${prefix}responses:r1`)).toBe(text);
    expect(await store.get('responses:r1')).toEqual({ answer: 'say "hi"', n: [1, 2] });
    await store.close();
  });

  it('compareAndSet writes JSON with a millisecond TTL, and never matches a value that is not JSON', async () => {
    const store = createRedisStore({ url: REDIS_URL, prefix });
    expect(await store.compareAndSet('breaker:a/x', undefined, { state: 'open' }, 30_000)).toBe(true);
    expect(await redis.get(`${prefix}breaker:a/x`)).toBe('{"state":"open"}');
    expect(await redis.pttl(`${prefix}breaker:a/x`)).toBeGreaterThan(29_000);
    expect(await store.compareAndSet('breaker:a/x', { state: 'open' }, { state: 'closed' })).toBe(true);
    expect(await redis.pttl(`${prefix}breaker:a/x`)).toBe(-1);
    // get() reads foreign text as a string, whose JSON is not what Redis holds: refused, not overwritten.
    await redis.set(`${prefix}legacy`, 'not json');
    expect(await store.compareAndSet('legacy', await store.get('legacy'), 'mine')).toBe(false);
    expect(await redis.get(`${prefix}legacy`)).toBe('not json');
    await store.close();
  });

  it('stores with different prefixes never see each other', async () => {
    const other = uniquePrefix('other');
    const a = createRedisStore({ url: REDIS_URL, prefix });
    const b = createRedisStore({ url: REDIS_URL, prefix: other });
    await a.set('k', 'a');
    expect(await b.get('k')).toBeUndefined();
    expect(await b.acquireLease('lease', 'b', 10_000)).toBe(true);
    expect(await a.acquireLease('lease', 'a', 10_000)).toBe(true);
    await Promise.all([a.close(), b.close(), deleteKeys(redis, other)]);
  });

  it('reads a value some other writer left as plain text as that text', async () => {
    await redis.set(`${prefix}legacy`, 'not json');
    const store = createRedisStore({ url: REDIS_URL, prefix });
    expect(await store.get('legacy')).toBe('not json');
    await store.close();
  });

  it('close() quits the connection it opened; later calls are answered locally, not thrown', async () => {
    const errors: string[] = [];
    const store = createRedisStore({ url: REDIS_URL, prefix, onError: (e) => errors.push(e.code) });
    await store.ready();
    expect(store.available).toBe(true);
    await store.close();
    expect(store.available).toBe(false);
    await store.set('k', 'v');
    expect(await redis.get(`${prefix}k`)).toBeNull();
    // A closed store has no outage to report (issue 38: `validate` warned "Redis unavailable" while Redis was up).
    expect(errors).toEqual([]);
  });

  it('uses a client passed in and leaves it open on close()', async () => {
    const client = new Redis(REDIS_URL);
    const store = createRedisStore({ client, prefix });
    await store.set('k', 1);
    expect(await store.increment('k')).toBe(2);
    await store.close();
    expect(client.status).toBe('ready');
    expect(await client.get(`${prefix}k`)).toBe('2');
    // Still usable: a reloaded pipeline may close the store while the next one keeps it.
    expect(await store.increment('k')).toBe(3);
    await client.quit();
  });

  it('connects a lazy client passed in', async () => {
    const client = new Redis(REDIS_URL, { lazyConnect: true });
    const store = createRedisStore({ client, prefix });
    await store.ready();
    await store.set('k', 'v');
    expect(await redis.get(`${prefix}k`)).toBe('"v"');
    await client.quit();
  });
});
