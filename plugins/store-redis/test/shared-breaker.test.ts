/**
 * Two gateway instances (two pipelines, each with its own Redis connection) share one breaker:
 * what one of them learns about a failing upstream, the other acts on.
 */
import { createPipeline, type Pipeline } from '@switchyard/core';
import { circuitBreaker, getBreaker } from '@switchyard/plugin-circuit-breaker';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { createRedisStore, type RedisStateStore } from '../src/index.js';
import { deleteKeys, describeWithRedis, inspector, REDIS_URL, sleep, uniquePrefix } from './support/redis.js';

const REQUEST = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describeWithRedis('a breaker shared through Redis', () => {
  let failing: Loopback;
  let healthy: Loopback;
  let prefix: string;
  let instances: { pipeline: Pipeline; store: RedisStateStore }[];

  /** One gateway instance: its own pipeline, store and connection; the same upstreams and prefix. */
  async function instance(): Promise<Pipeline> {
    const store = createRedisStore({ url: REDIS_URL, prefix });
    await store.ready();
    const pipeline = createPipeline({
      endpoints: [
        { name: 'a', provider: 'test', baseUrl: failing.url },
        { name: 'b', provider: 'test', baseUrl: healthy.url },
      ],
      models: { chat: [{ endpoint: 'a', model: 'x', priority: 0 }, { endpoint: 'b', model: 'y', priority: 1 }] },
      providers: [testProvider],
      plugins: [circuitBreaker({ consecutiveFailures: 2, openJitter: 0 })],
      store,
    });
    instances.push({ pipeline, store });
    return pipeline;
  }

  beforeEach(async () => {
    prefix = uniquePrefix('breaker');
    instances = [];
    failing = await startLoopback(async (_req, res) => {
      // Slow enough that concurrent requests all decide on admission before the answer lands.
      await sleep(50);
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'down' } }));
    });
    healthy = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion('from b')));
    });
  });

  afterEach(async () => {
    // Each pipeline closes its own store (and so its connection).
    await Promise.all(instances.map((i) => i.pipeline.close()));
    const cleaner = inspector();
    await deleteKeys(cleaner, prefix);
    await Promise.all([cleaner.quit(), failing.close(), healthy.close()]);
  });

  it('failures seen by instance A open the breaker that instance B respects', async () => {
    const a = await instance();
    const b = await instance();
    const opened: string[] = [];
    a.events.on('breaker:open', (e) => opened.push(e.deployment));

    for (let i = 0; i < 2; i++) expect((await a.chat(REQUEST)).choices[0].message.content).toBe('from b');
    expect(failing.requests).toHaveLength(2);
    expect(opened).toEqual(['a/x']);

    // B never saw a failure itself, yet skips the failing upstream.
    expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'open', failures: 2, trips: 1 });
    for (let i = 0; i < 3; i++) {
      const answer = await b.chat(REQUEST);
      expect(answer.choices[0].message.content).toBe('from b');
      expect(answer.switchyard).toMatchObject({ endpoint: 'b', attempts: 1 });
    }
    expect(failing.requests).toHaveLength(2);
    expect(healthy.requests).toHaveLength(5);
  });

  it('a breaker forced closed on one instance is closed on the other', async () => {
    const a = await instance();
    const b = await instance();
    await getBreaker(a).forceOpen('a/x');
    await b.chat(REQUEST);
    expect(failing.requests).toHaveLength(0);
    await getBreaker(b).forceClose('a/x');
    expect(await getBreaker(a).getState('a/x')).toMatchObject({ state: 'closed' });
    await a.chat(REQUEST);
    expect(failing.requests).toHaveLength(1);
  });

  it('when the open period ends, exactly one request across both instances probes the upstream', async () => {
    const a = await instance();
    const b = await instance();
    await getBreaker(a).forceOpen('a/x', 100);
    await sleep(150);
    expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'half-open' });

    const answers = await Promise.all([a, b, a, b, a, b].map((p) => p.chat(REQUEST)));
    expect(answers.every((r) => r.choices[0].message.content === 'from b')).toBe(true);
    // One probe in total, not one per instance: the lease lives in Redis.
    expect(failing.requests).toHaveLength(1);
    // The probe failed: open again, for both.
    expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'open' });
    expect(await getBreaker(a).getState('a/x')).toMatchObject({ state: 'open' });
  });
});
