/**
 * The Idempotency-Key header through real gateways: concurrent duplicates make one upstream
 * call, on one gateway and across two gateways sharing the real Redis (.ci/redis.sh).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStateStore } from '@switchyard/store-redis';
import { describeWithRedis, REDIS_URL, uniquePrefix } from '../../../plugins/store-redis/test/support/redis.js';
import { chatBody, completion, pipelineFor, raw, startGateway, stopAll, vendor, type Loopback } from './support/harness.js';

afterEach(stopAll);

/** A vendor that takes a while and numbers its answers, so every upstream call shows. */
function slowAnswers(delayMs = 300) {
  let n = 0;
  return vendor(async (_req, res) => {
    const text = `answer ${++n}`;
    await new Promise((r) => setTimeout(r, delayMs));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(text, 'upstream-model')));
  });
}

const post = (origin: string, key: string, extra: Record<string, unknown> = {}) => raw(origin, '/v1/chat/completions', { body: chatBody(extra), headers: { 'idempotency-key': key } });

describe('Idempotency-Key on one gateway', () => {
  it('concurrent duplicates make one upstream call; a duplicate stream in flight gets a clean 409', async () => {
    const upstream: Loopback = await slowAnswers();
    const gw = await startGateway(pipelineFor({ vendors: { v: upstream } }));
    const pending = [post(gw.origin, 'pay-42'), post(gw.origin, 'pay-42')];
    await new Promise((r) => setTimeout(r, 100));
    const stream = await post(gw.origin, 'pay-42', { stream: true });
    expect(stream.status).toBe(409);
    expect(stream.json.error).toMatchObject({ code: 'idempotency_conflict', type: 'invalid_request_error' });
    const [a, b] = await Promise.all(pending);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.json.choices[0].message.content).toBe('answer 1');
    expect(b.json.choices[0].message.content).toBe('answer 1');
    expect(upstream.requests).toHaveLength(1);
  });
});

describeWithRedis('Idempotency-Key across two gateways on Redis', () => {
  it('duplicates sent to two gateways at once make one upstream call, and later ones get the stored answer', async () => {
    const upstream = await slowAnswers();
    const prefix = uniquePrefix('idempotency');
    // A command slower than the default 500 ms (a loaded CI machine) would make a store serve from
    // its own memory for a moment, as it should during an outage; this test is about sharing.
    const stores = [new RedisStateStore({ url: REDIS_URL, prefix, commandTimeoutMs: 10_000 }), new RedisStateStore({ url: REDIS_URL, prefix, commandTimeoutMs: 10_000 })];
    try {
      await Promise.all(stores.map((store) => store.ready()));
      const [one, two] = await Promise.all(stores.map((store) => startGateway(pipelineFor({ vendors: { v: upstream }, extra: { store } }))));
      const [a, b] = await Promise.all([post(one.origin, 'invoice-7'), post(two.origin, 'invoice-7')]);
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
