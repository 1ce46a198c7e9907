/**
 * The Idempotency-Key header through real gateways: concurrent duplicates make one upstream
 * call, on one gateway and across two gateways sharing the real Redis (.ci/redis.sh); while
 * Redis is down, a key is refused with a coded 503 (or, configured, guarded per instance).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisStateStore } from '@switchyard/store-redis';
import { describeWithRedis, hasRedisServer, OwnRedisServer, REDIS_URL, uniquePrefix } from '../../../plugins/store-redis/test/support/redis.js';
import { recordingLogger } from './support/log-recorder.js';
import { chatBody, completion, pipelineFor, raw, startGateway, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

/**
 * A vendor that numbers its answers, so every upstream call shows, and holds each request until
 * `release()` (then answers at once); `held: false` answers from the start.
 */
async function heldAnswers({ held = true } = {}) {
  let n = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  if (!held) release();
  const server = await vendor(async (_req, res) => {
    const text = `answer ${++n}`;
    await released;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(text, 'upstream-model')));
  });
  return Object.assign(server, { release });
}

const post = (origin: string, key: string, extra: Record<string, unknown> = {}) => raw(origin, '/v1/chat/completions', { body: chatBody(extra), headers: { 'idempotency-key': key } });

describe('Idempotency-Key on one gateway', () => {
  it('concurrent duplicates make one upstream call; a duplicate stream in flight gets a clean 409', async () => {
    const upstream = await heldAnswers();
    const gw = await startGateway(pipelineFor({ vendors: { v: upstream } }));
    const pending = [post(gw.origin, 'pay-42'), post(gw.origin, 'pay-42')];
    await expect.poll(() => [upstream.requests.length, gw.gateway.inFlight], { timeout: 5_000, interval: 5 }).toEqual([1, 2]);
    const stream = await post(gw.origin, 'pay-42', { stream: true });
    expect(stream.status).toBe(409);
    expect(stream.json.error).toMatchObject({ code: 'idempotency_conflict', type: 'invalid_request_error' });
    upstream.release();
    const [a, b] = await Promise.all(pending);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.json.choices[0].message.content).toBe('answer 1');
    expect(b.json.choices[0].message.content).toBe('answer 1');
    expect(upstream.requests).toHaveLength(1);
  });
});

describeWithRedis('Idempotency-Key across two gateways on Redis', () => {
  it('duplicates sent to two gateways at once make one upstream call, and later ones get the stored answer', async () => {
    const upstream = await heldAnswers();
    const prefix = uniquePrefix('idempotency');
    // A command slower than the default 500 ms (a loaded CI machine) would make a store serve from
    // its own memory for a moment, as it should during an outage; this test is about sharing.
    const stores = [new RedisStateStore({ url: REDIS_URL, prefix, commandTimeoutMs: 10_000 }), new RedisStateStore({ url: REDIS_URL, prefix, commandTimeoutMs: 10_000 })];
    try {
      await Promise.all(stores.map((store) => store.ready()));
      const [one, two] = await Promise.all(stores.map((store) => startGateway(pipelineFor({ vendors: { v: upstream }, extra: { store } }))));
      const both = Promise.all([post(one.origin, 'invoice-7'), post(two.origin, 'invoice-7')]);
      // Both gateways hold the key's request while the vendor works on the first one.
      await expect.poll(() => [upstream.requests.length, one.gateway.inFlight, two.gateway.inFlight], { timeout: 10_000, interval: 5 }).toEqual([1, 1, 1]);
      upstream.release();
      const [a, b] = await both;
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.json.choices[0].message.content).toBe(a.json.choices[0].message.content);
      expect(upstream.requests).toHaveLength(1);
      const later = await post(two.origin, 'invoice-7');
      expect(later.json.choices[0].message.content).toBe(a.json.choices[0].message.content);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

describe('Idempotency-Key while the shared Redis is down', () => {
  let redis: OwnRedisServer | undefined;
  const stores: RedisStateStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await redis?.close();
  });

  const installed = hasRedisServer();
  if (!installed && process.env.CI) it('needs redis-server', () => expect.fail('redis-server is not installed; .ci/redis.sh installs it'));

  it.skipIf(!installed)('two gateways refuse a key with a coded 503 and call no vendor (the default); `local` serves it with a warning', { timeout: 30_000 }, async () => {
    // A Redis of the test's own on its own port: stopping it takes nobody else's Redis down.
    redis = await OwnRedisServer.start();
    const upstream = await heldAnswers({ held: false });
    const prefix = uniquePrefix('idempotency-outage');
    const store = () => {
      const s = new RedisStateStore({ url: redis!.url, prefix, commandTimeoutMs: 2_000, recheckMs: 200, onError: () => undefined });
      stores.push(s);
      return s;
    };
    const [storeA, storeB, storeLocal] = [store(), store(), store()];
    await Promise.all([storeA, storeB, storeLocal].map((s) => s.ready()));
    const logs = recordingLogger();
    const a = await startGateway(pipelineFor({ vendors: { v: upstream }, extra: { store: storeA } }));
    const b = await startGateway(pipelineFor({ vendors: { v: upstream }, extra: { store: storeB } }));
    const local = await startGateway(pipelineFor({ vendors: { v: upstream }, extra: { store: storeLocal, idempotency: { whenStoreUnavailable: 'local' } } }), { logger: logs });
    expect((await post(a.origin, 'before')).status).toBe(200);
    expect(upstream.requests).toHaveLength(1);

    await redis.stop();
    const [first, second] = await Promise.all([post(a.origin, 'order-9'), post(b.origin, 'order-9')]);
    for (const refused of [first, second]) {
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json.error).toMatchObject({ code: 'idempotency_unavailable', type: 'server_error' });
      expect(refused.text).not.toContain(String(redis.port));
    }
    expect(upstream.requests).toHaveLength(1);
    // A request without a key needs no shared guard: a Redis outage never fails it.
    expect((await raw(a.origin, '/v1/chat/completions', { body: chatBody() })).status).toBe(200);
    expect(upstream.requests).toHaveLength(2);

    const served = await post(local.origin, 'order-9');
    expect(served.status).toBe(200);
    expect(upstream.requests).toHaveLength(3);
    expect(logs.lines.filter((l) => l.event === 'idempotency_unshared')).toEqual([expect.objectContaining({ level: 'warn', model: 'chat', reason: expect.stringContaining('guarded by this instance only') })]);

    // Redis back: the key is guarded across the gateways again.
    await redis.start();
    await Promise.all([storeA, storeB].map((s) => s.ready()));
    // Past recheckMs a store asks Redis again: poke both until they answer from Redis.
    await vi.waitFor(
      async () => {
        await Promise.all([storeA, storeB].map((s) => s.get('recheck')));
        expect([storeA.available, storeB.available]).toEqual([true, true]);
      },
      { timeout: 5_000, interval: 20 },
    );
    const again = await post(a.origin, 'order-10');
    expect(again.status).toBe(200);
    const duplicate = await post(b.origin, 'order-10');
    expect(duplicate.json.choices[0].message.content).toBe(again.json.choices[0].message.content);
    expect(upstream.requests).toHaveLength(4);
  });
});
