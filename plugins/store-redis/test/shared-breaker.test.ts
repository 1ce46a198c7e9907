/**
 * Two gateway instances (two pipelines, each with its own Redis connection) share one breaker:
 * what one of them learns about a failing upstream, the other acts on.
 */
import { createPipeline, type Pipeline, type StateStore } from '@switchyard/core';
import { circuitBreaker, getBreaker } from '@switchyard/plugin-circuit-breaker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { createRedisStore, type RedisStateStore } from '../src/index.js';
import { deleteKeys, describeWithRedis, inspector, REDIS_URL, sleep, uniquePrefix } from './support/redis.js';

const REQUEST = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const BREAKER_KEY = 'switchyard:breaker:a/x';

/** Each caller waits until `n` callers wait (or 2 s pass, so a broken test fails rather than hangs). */
function rendezvous(n: number): () => Promise<void> {
  const waiting: (() => void)[] = [];
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length >= n) waiting.splice(0).forEach((release) => release());
      else setTimeout(resolve, 2_000).unref();
    });
}

/**
 * Once armed, the next `n` reads of the breaker record (one per instance: each instance runs one
 * update per breaker at a time) are held after Redis answered until all `n` have read. Every
 * instance then steps the same record, the interleaving that lost updates before
 * compareAndSet, on every run instead of by chance.
 */
function readGate(n: number) {
  let meet: (() => Promise<void>) | undefined;
  let held = 0;
  return {
    arm() {
      meet = rendezvous(n);
      held = 0;
    },
    wrap(store: RedisStateStore): StateStore {
      return new Proxy(store, {
        get(target, property) {
          if (property === 'get') {
            return async (key: string) => {
              const value = await target.get(key);
              const waitFor = key === BREAKER_KEY ? meet : undefined;
              if (waitFor && ++held === n) meet = undefined;
              if (waitFor) await waitFor();
              return value;
            };
          }
          const member = Reflect.get(target, property, target) as unknown;
          return typeof member === 'function' ? member.bind(target) : member;
        },
      });
    },
  };
}

describeWithRedis('a breaker shared through Redis', () => {
  let failing: Loopback;
  let healthy: Loopback;
  let prefix: string;
  let instances: { pipeline: Pipeline; store: RedisStateStore }[];

  /**
   * One gateway instance: its own pipeline, store and connection; the same prefix. Endpoint `a`
   * (breaker a/x) is the failing upstream unless `a` says otherwise.
   */
  async function instance({ a = failing, consecutiveFailures = 2, gate }: { a?: Loopback; consecutiveFailures?: number; gate?: ReturnType<typeof readGate> } = {}): Promise<Pipeline> {
    const store = createRedisStore({ url: REDIS_URL, prefix });
    await store.ready();
    const pipeline = createPipeline({
      endpoints: [
        { name: 'a', provider: 'test', baseUrl: a.url },
        { name: 'b', provider: 'test', baseUrl: healthy.url },
      ],
      models: { chat: [{ endpoint: 'a', model: 'x', priority: 0 }, { endpoint: 'b', model: 'y', priority: 1 }] },
      providers: [testProvider],
      plugins: [circuitBreaker({ consecutiveFailures, openJitter: 0 })],
      store: gate ? gate.wrap(store) : store,
    });
    instances.push({ pipeline, store });
    return pipeline;
  }

  beforeEach(async () => {
    prefix = uniquePrefix('breaker');
    instances = [];
    failing = await startLoopback(async (_req, res) => {
      // Slow enough that concurrent requests all decide on admission before the answer lands: a
      // slow vendor on a real socket is the condition under test.
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
    await vi.waitFor(async () => expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'half-open' }), { timeout: 5_000, interval: 10 });

    const answers = await Promise.all([a, b, a, b, a, b].map((p) => p.chat(REQUEST)));
    expect(answers.every((r) => r.choices[0].message.content === 'from b')).toBe(true);
    // One probe in total, not one per instance: the lease lives in Redis.
    expect(failing.requests).toHaveLength(1);
    // The probe failed: open again, for both.
    expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'open' });
    expect(await getBreaker(a).getState('a/x')).toMatchObject({ state: 'open' });
  });

  describe('updates from two instances at the same moment', () => {
    const extra: Loopback[] = [];
    afterEach(async () => {
      await Promise.all(extra.splice(0).map((u) => u.close()));
    });

    /** An upstream that answers once `arrived` lets it (so every request was admitted first). */
    async function upstream(status: number, arrived: () => Promise<void>): Promise<Loopback> {
      const server = await startLoopback(async (_req, res) => {
        await arrived();
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status === 200 ? completion('from a') : { error: { message: 'down' } }));
      });
      extra.push(server);
      return server;
    }

    it('count all of 2 + 2 simultaneous failures: threshold 4 opens, once', async () => {
      const gate = readGate(2);
      const allArrived = rendezvous(4);
      const down = await upstream(503, async () => {
        await allArrived();
        gate.arm();
      });
      const a = await instance({ a: down, consecutiveFailures: 4, gate });
      const b = await instance({ a: down, consecutiveFailures: 4, gate });
      const opened: string[] = [];
      // The transition happens once; the other instance hears of it by pub/sub (marked remote).
      for (const p of [a, b]) p.events.on('breaker:open', (e) => void (e.remote || opened.push(e.deployment)));

      const answers = await Promise.all([a, b, a, b].map((p) => p.chat(REQUEST)));
      expect(answers.map((r) => r.choices[0].message.content)).toEqual(['from b', 'from b', 'from b', 'from b']);
      expect(down.requests).toHaveLength(4);
      expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'open', failures: 4, trips: 1, window: { calls: 4, failures: 4 } });
      expect(opened).toEqual(['a/x']);
    });

    it('a success racing the failure that trips is counted, and never closes an open breaker behind its event', async () => {
      const gate = readGate(2);
      let racing = false;
      const bothArrived = rendezvous(2);
      const arrived = async () => {
        if (!racing) return;
        await bothArrived();
        gate.arm();
      };
      // One breaker id a/x, two upstreams: instance A reaches a failing one, instance B a healthy one.
      const a = await instance({ a: await upstream(503, arrived), consecutiveFailures: 4, gate });
      const b = await instance({ a: await upstream(200, arrived), consecutiveFailures: 4, gate });
      const events: string[] = [];
      for (const p of [a, b]) {
        p.events.on('breaker:open', (e) => void (e.remote || events.push('open')));
        p.events.on('breaker:close', (e) => void (e.remote || events.push('close')));
      }
      for (let i = 0; i < 3; i++) await a.chat(REQUEST);
      racing = true;
      await Promise.all([a.chat(REQUEST), b.chat(REQUEST)]);

      const state = await getBreaker(b).getState('a/x');
      expect(state.window).toEqual({ calls: 5, failures: 4 });
      // Either the trip landed first (the success is counted in the open breaker) or the success
      // did (the failure then starts a new run): the events always tell the stored state.
      if (state.state === 'open') {
        expect(events).toEqual(['open']);
        expect(state.failures).toBe(4);
      } else {
        expect(events).toEqual([]);
        expect(state).toMatchObject({ state: 'closed', failures: 1 });
      }
    });
  });
});
