/** Bad configuration fails at creation; a Redis that is down, slow or restarting never fails a request. */
import { createPipeline, isSwitchyardError, type SwitchyardError } from '@switchyard/core';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { createRedisStore, type RedisStateStore, type RedisStoreOptionsInput } from '../src/index.js';
import { deleteKeys, describeWithRedis, freePort, hasRedisServer, inspector, OwnRedisServer, REDIS_URL, uniquePrefix } from './support/redis.js';

function thrown(fn: () => unknown): SwitchyardError {
  try {
    fn();
  } catch (error) {
    if (isSwitchyardError(error)) return error;
    throw error;
  }
  throw new Error('expected a SwitchyardError');
}

/** A loopback port that nothing listens on. */
const closedPort = freePort;

const stores: RedisStateStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});
function track(options: RedisStoreOptionsInput): RedisStateStore {
  const store = createRedisStore(options);
  stores.push(store);
  return store;
}

describe('configuration errors', () => {
  it.each([
    ['http://127.0.0.1:6379', 'has scheme "http", expected redis or rediss'],
    ['127.0.0.1:6379', 'is not a URL'],
    ['redis://', 'names no host'],
    ['not a url', 'is not a URL'],
    ['redis://127.0.0.1:6379/cache', 'has path "/cache", expected a database number'],
    ['redis://127.0.0.1:99999', 'is not a URL'],
  ])('%s is refused with SWITCHYARD_ERR_REDIS_URL', (url, problem) => {
    const error = thrown(() => createRedisStore({ url }));
    expect(error).toMatchObject({ kind: 'config', code: 'SWITCHYARD_ERR_REDIS_URL', path: 'url' });
    expect(error.message).toContain(problem);
  });

  it('never shows the password of a bad URL', () => {
    const error = thrown(() => createRedisStore({ url: 'redis://admin:hunter2@127.0.0.1:6379/not-a-db' }));
    expect(error.message).toContain('redis://admin:***@127.0.0.1:6379/not-a-db');
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    ['neither url nor client', {}, 'url', 'give exactly one of url, client, sentinel or cluster'],
    ['both url and client', { url: REDIS_URL, client: new Redis({ lazyConnect: true }) }, 'url', 'give exactly one of url, client, sentinel or cluster'],
    ['a zero command timeout', { url: REDIS_URL, commandTimeoutMs: 0 }, 'commandTimeoutMs', 'commandTimeoutMs'],
    ['an unknown fallback', { url: REDIS_URL, whenUnavailable: 'crash' }, 'whenUnavailable', 'whenUnavailable'],
    ['an unknown option', { url: REDIS_URL, keyPrefix: 'x' }, '(options)', 'keyPrefix'],
  ])('%s is refused with SWITCHYARD_ERR_STORE_OPTIONS naming the field', (_name, options, path, mention) => {
    const error = thrown(() => createRedisStore(options as RedisStoreOptionsInput));
    expect(error).toMatchObject({ kind: 'config', code: 'SWITCHYARD_ERR_STORE_OPTIONS', path });
    expect(error.message).toContain(mention);
  });

  it('refuses a bad amount or TTL with SWITCHYARD_ERR_STORE_ARGUMENT, before touching Redis', async () => {
    const store = track({ url: `redis://127.0.0.1:${await closedPort()}`, onError: () => undefined });
    await expect(store.increment('k', Number.NaN)).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_ARGUMENT' });
    await expect(store.set('k', 1, Number.NaN)).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_ARGUMENT' });
    await expect(store.acquireLease('k', 'h', Number.POSITIVE_INFINITY)).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_ARGUMENT' });
    await expect(store.compareAndSet('k', undefined, 1, Number.NaN)).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_ARGUMENT' });
  });
});

describe('a Redis that is down', () => {
  it('answers every operation from local memory, reports the outage once, and keeps the password out of it', async () => {
    const errors: SwitchyardError[] = [];
    const store = track({ url: `redis://:hunter2@127.0.0.1:${await closedPort()}`, onError: (e) => errors.push(e) });
    const started = performance.now();
    expect(await store.increment('c', 1, 60_000)).toBe(1);
    expect(await store.increment('c')).toBe(2);
    await store.set('k', { v: 1 });
    expect(await store.get('k')).toEqual({ v: 1 });
    expect(await store.acquireLease('probe', 'a', 60_000)).toBe(true);
    expect(await store.acquireLease('probe', 'b', 60_000)).toBe(false);
    await store.releaseLease('probe', 'a');
    expect(await store.compareAndSet('k', { v: 1 }, { v: 2 })).toBe(true);
    expect(await store.compareAndSet('k', { v: 1 }, { v: 3 })).toBe(false);
    expect(await store.get('k')).toEqual({ v: 2 });
    await store.delete('k');
    expect(await store.get('k')).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(store.available).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: 'plugin', code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
    expect(errors[0].message).toContain('ECONNREFUSED');
    expect(errors[0].message).toContain('serving state from this instance');
    expect(errors[0].message).not.toContain('hunter2');
  });

  it('ready() rejects with a coded error naming the cause', async () => {
    const store = track({ url: `redis://127.0.0.1:${await closedPort()}`, connectTimeoutMs: 300, onError: () => undefined });
    const error = await store.ready().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it("whenUnavailable: 'throw' rejects each operation with SWITCHYARD_ERR_STORE_UNAVAILABLE instead", async () => {
    const store = track({ url: `redis://127.0.0.1:${await closedPort()}`, whenUnavailable: 'throw', onError: () => undefined });
    await expect(store.get('k')).rejects.toMatchObject({ kind: 'plugin', code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
    await expect(store.increment('k')).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
    await expect(store.acquireLease('k', 'h', 1_000)).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
    await expect(store.compareAndSet('k', undefined, 1)).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
  });

  it('warns through process warnings when no onError is given', async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on('warning', listen);
    const store = track({ url: `redis://127.0.0.1:${await closedPort()}` });
    await store.get('k');
    await store.get('k');
    // process.emitWarning delivers on the next tick: a turn of the event loop runs every one queued.
    await new Promise((r) => setImmediate(r));
    process.off('warning', listen);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ name: 'SwitchyardWarning', code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
  });

  describe('under a pipeline with the circuit breaker', () => {
    const upstreams: Loopback[] = [];
    afterEach(async () => {
      await Promise.all(upstreams.splice(0).map((u) => u.close()));
    });

    it('requests still succeed and the breaker still opens, on local state', async () => {
      const failing = await startLoopback((_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'down' } }));
      });
      const healthy = await startLoopback((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completion('from b')));
      });
      upstreams.push(failing, healthy);
      const store = track({ url: `redis://127.0.0.1:${await closedPort()}`, onError: () => undefined });
      const pipeline = createPipeline({
        endpoints: [
          { name: 'a', provider: 'test', baseUrl: failing.url },
          { name: 'b', provider: 'test', baseUrl: healthy.url },
        ],
        models: { chat: [{ endpoint: 'a', model: 'x', priority: 0 }, { endpoint: 'b', model: 'y', priority: 1 }] },
        providers: [testProvider],
        plugins: [circuitBreaker({ consecutiveFailures: 2 })],
        store,
      });
      for (let i = 0; i < 4; i++) {
        const answer = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
        expect(answer.choices[0].message.content).toBe('from b');
      }
      // Two failures opened a/x: the last two requests went straight to b.
      expect(failing.requests).toHaveLength(2);
      expect(healthy.requests).toHaveLength(4);
      await pipeline.close();
    });
  });
});

describeWithRedis('a Redis that is slow', () => {
  it('times a command out, answers locally, leaves Redis alone until the recheck, then uses it again', async () => {
    const prefix = uniquePrefix('slow');
    const client = new Redis(REDIS_URL);
    const blocker = inspector();
    const errors: SwitchyardError[] = [];
    const store = track({ client, prefix, commandTimeoutMs: 250, recheckMs: 700, onError: (e) => errors.push(e) });
    await store.ready();
    await store.set('k', 'shared');
    // A blocking pop holds this connection for 600 ms: every command queued behind it is late.
    void client.blpop(`${prefix}nothing`, 0.6);
    let started = performance.now();
    expect(await store.get('k')).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('got no answer within 250 ms');
    // Within the recheck period Redis is not asked: no more waiting (one command would take 250 ms).
    started = performance.now();
    await store.set('k', 'local');
    expect(await store.get('k')).toBe('local');
    expect(await store.increment('n')).toBe(1);
    expect(performance.now() - started).toBeLessThan(200);
    expect(store.available).toBe(false);
    // After recheckMs the store asks Redis again: it answers from Redis from then on.
    await vi.waitFor(async () => expect(await store.get('k')).toBe('shared'), { timeout: 5_000, interval: 20 });
    expect(store.available).toBe(true);
    await store.close();
    await deleteKeys(blocker, prefix);
    await Promise.all([client.quit(), blocker.quit()]);
  });
});

describeWithRedis('a Redis that restarts', () => {
  let server: OwnRedisServer | undefined;
  afterEach(() => server?.close());

  it.skipIf(!hasRedisServer())('serves locally while it is gone and returns to shared state when it is back', async () => {
    server = await OwnRedisServer.start();
    const url = server.url;
    const errors: SwitchyardError[] = [];
    const store = track({ url, onError: (e) => errors.push(e) });
    const peer = track({ url, onError: () => undefined });
    await Promise.all([store.ready(), peer.ready()]);
    expect(await store.increment('c')).toBe(1);
    expect(await peer.increment('c')).toBe(2);

    await server.stop();
    expect(await store.increment('c')).toBe(1);
    expect(await store.increment('c')).toBe(2);
    expect(errors).toHaveLength(1);

    await server.start();
    await Promise.all([store.ready(), peer.ready()]);
    // The new server started empty; the counts made locally during the outage are added to it.
    expect(await store.increment('c')).toBe(3);
    expect(store.available).toBe(true);
    expect(await peer.increment('c')).toBe(4);
  });
});

describeWithRedis('a connection ioredis gives up on', () => {
  it('is opened again: a connect that fails because the connector was closed mid-connect does not leave the store local for good', async () => {
    const prefix = uniquePrefix('reopen');
    const store = track({ url: REDIS_URL, prefix, recheckMs: 20, onError: () => undefined });
    await store.ready();
    const client = (store as unknown as { client: Redis }).client;
    // What ioredis's Sentinel failover detector does when a failover is announced while the
    // connection is being made again: it closes the connector, the connect fails with
    // "Connection is closed.", and ioredis ends the connection with no retry.
    client.once('connecting', () => (client as unknown as { connector: { disconnect(): void } }).connector.disconnect());
    const ended = new Promise((resolve) => client.once('end', resolve));
    client.disconnect(true);
    await ended;
    expect(await store.increment('after')).toBe(1); // answered locally while it was gone
    await expect.poll(() => client.status, { timeout: 5_000, interval: 20 }).toBe('ready');
    await expect.poll(async () => (await store.increment('after'), store.available), { timeout: 5_000, interval: 50 }).toBe(true);
    // Back on the shared state: what was counted locally was added to Redis.
    const direct = new Redis(REDIS_URL);
    try {
      expect(Number(await direct.get(`${prefix}after`))).toBeGreaterThanOrEqual(2);
    } finally {
      await deleteKeys(direct, prefix);
      direct.disconnect();
    }
  });
});
