/** The retry policy's decisions per outcome class, on virtual time through a real pipeline. */
import { describe, expect, it } from 'vitest';
import { createPipeline, isSwitchyardError, seededRandom, VirtualClock, type EndpointConfig, type ModelsConfig, type SwitchyardEvents } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { retry, getRetryControl, type RetryOptionsInput, type RetryRequestState } from '../src/index.js';
import { fail, ok, scriptedTransport, type Script } from './support/in-process.js';
import { drive } from './support/drive.js';

const ENDPOINTS: EndpointConfig[] = [
  { name: 'a', provider: 'test', baseUrl: 'http://a.test/v1' },
  { name: 'b', provider: 'test', baseUrl: 'http://b.test/v1' },
];
const MODELS: ModelsConfig = { chat: [{ endpoint: 'a', model: 'x' }, { endpoint: 'b', model: 'y' }] };
const REQ = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

function setup(script: Script, options: RetryOptionsInput = {}, config: { endpoints?: EndpointConfig[]; models?: ModelsConfig; deadlineMs?: number } = {}) {
  const clock = new VirtualClock(0);
  const transport = scriptedTransport(script, () => clock.now());
  const pipeline = createPipeline({ endpoints: config.endpoints ?? ENDPOINTS, models: config.models ?? MODELS, providers: [testProvider], plugins: [retry(options)], clock, random: seededRandom(1), transport, deadlineMs: config.deadlineMs });
  const events: { name: keyof SwitchyardEvents; at: number; payload: unknown }[] = [];
  for (const name of ['retry', 'failover', 'deployment:misconfigured'] as const) pipeline.events.on(name, (payload: unknown) => events.push({ name, at: clock.now(), payload }));
  const states: RetryRequestState[] = [];
  pipeline.hooks.recordRequest.tapPromise('test-observer', async (_o, ctx) => {
    if (ctx.state.retry) states.push(ctx.state.retry);
  });
  const chat = (signal?: AbortSignal) => drive(clock, pipeline.chat(REQ, { signal }));
  return { clock, transport, pipeline, events, states, chat };
}

const hosts = (t: { calls: { host: string }[] }) => t.calls.map((c) => c.host[0]).join('');

describe('request failures', () => {
  it('a 400 is never retried nor failed over; the vendor reason reaches the caller', async () => {
    const { transport, chat } = setup(() => fail(400, 'messages[0].content must be a string'));
    const error = await chat().catch((e) => e);
    expect(isSwitchyardError(error) && error.kind).toBe('bad-request');
    expect(error.status).toBe(400);
    expect(error.message).toContain('messages[0].content must be a string');
    expect(hosts(transport)).toBe('a');
  });
});

describe('key failures', () => {
  const twoKeys: EndpointConfig[] = [{ name: 'a', provider: 'test', baseUrl: 'http://a.test/v1', apiKeys: ['sk-bad-0000', 'sk-good-1111'] }, ENDPOINTS[1]];

  it('a 401 moves to the next key at once and the bad key is skipped by later requests', async () => {
    const script: Script = ({ request }) => (request.headers.authorization === 'Bearer sk-bad-0000' ? fail(401, 'invalid api key') : ok('fine'));
    const { transport, chat, events, clock } = setup(script, {}, { endpoints: twoKeys });
    const first = await chat();
    expect(first.choices[0].message.content).toBe('fine');
    expect(events.filter((e) => e.name === 'retry')).toHaveLength(0);
    await chat();
    await chat();
    const bad = transport.calls.filter((_, i) => i === 0);
    expect(bad).toHaveLength(1);
    expect(transport.calls).toHaveLength(4);
    await clock.advance(60_000);
    await chat();
    expect(transport.calls).toHaveLength(6);
  });

  it('a key that keeps failing rests twice as long each time, up to the maximum', async () => {
    const script: Script = ({ request }) => (request.headers.authorization === 'Bearer sk-bad-0000' ? fail(402, 'insufficient balance') : ok('fine'));
    const { transport, chat, clock } = setup(script, { keyFailureCooldownMs: 60_000, maxKeyFailureCooldownMs: 300_000 }, { endpoints: twoKeys });
    const badCallsAt: number[] = [];
    // One request a minute for 20 minutes: the bad key is tried after 1, 2, 4 then every 5 minutes.
    for (let minute = 0; minute < 20; minute++) {
      const before = transport.calls.length;
      await chat();
      if (transport.calls.length - before === 2) badCallsAt.push(minute);
      await clock.advance(60_000);
    }
    expect(badCallsAt).toEqual([0, 1, 3, 7, 12, 17]);
  });

  it('a 429 on one key of a multi-key endpoint rotates to the next key at once', async () => {
    const script: Script = ({ request }) => (request.headers.authorization === 'Bearer sk-bad-0000' ? fail(429, 'slow down', { headers: { 'retry-after': '30' } }) : ok('other key'));
    const { transport, chat, states } = setup(script, {}, { endpoints: twoKeys });
    expect((await chat()).choices[0].message.content).toBe('other key');
    expect(transport.calls.map((c) => c.at)).toEqual([0, 0]);
    expect(states[0].cooldowns.map((c) => c.scope)).toEqual(['a/x#0']);
    await chat();
    expect(transport.calls).toHaveLength(3);
  });

  it('a 429 insufficient_quota is a key failure: no wait, no retry on that key', async () => {
    const { transport, chat, events } = setup(({ host }) => (host === 'a.test' ? fail(429, 'You exceeded your current quota', { code: 'insufficient_quota', headers: { 'retry-after': '1' } }) : ok()));
    await chat();
    expect(hosts(transport)).toBe('ab');
    expect(events.filter((e) => e.name === 'retry')).toHaveLength(0);
  });
});

describe('misconfigured deployments', () => {
  it('a 404 fails over, is reported once and is skipped while flagged', async () => {
    const { transport, chat, events } = setup(({ host }) => (host === 'a.test' ? fail(404, 'The model x does not exist', { code: 'model_not_found' }) : ok()));
    await chat();
    await chat();
    expect(hosts(transport)).toBe('abb');
    expect(events.filter((e) => e.name === 'deployment:misconfigured')).toHaveLength(1);
  });
});

describe('rate limits', () => {
  it('a short Retry-After is waited out on the same deployment, never sooner than asked', async () => {
    const { transport, chat, events } = setup(({ n, host }) => (host === 'a.test' && n === 1 ? fail(429, 'slow down', { headers: { 'retry-after': '1' } }) : ok()));
    await chat();
    expect(hosts(transport)).toBe('aa');
    expect(transport.calls[1].at).toBeGreaterThanOrEqual(1000);
    expect(transport.calls[1].at).toBeLessThanOrEqual(1100);
    expect(events.find((e) => e.name === 'retry')?.payload).toMatchObject({ reason: 'rate-limited' });
  });

  it('a long Retry-After fails over at once and cools the deployment for that long', async () => {
    const { transport, chat, clock, states } = setup(({ host, n }) => (host === 'a.test' && n === 1 ? fail(429, 'slow down', { headers: { 'retry-after': '30' } }) : ok()));
    await chat();
    expect(transport.calls.map((c) => [c.host, c.at])).toEqual([['a.test', 0], ['b.test', 0]]);
    expect(states[0].cooldowns).toEqual([{ scope: 'a/x', until: 30_000, reason: 'rate-limited: retry after 30000 ms' }]);
    await clock.advance(29_000);
    await chat();
    expect(hosts(transport)).toBe('abb');
    expect(states[1].skipped).toEqual([{ candidate: 'a/x', until: 30_000, reason: expect.any(String) }]);
    await clock.advance(1_000);
    await chat();
    expect(hosts(transport)).toBe('abba');
  });

  it('values above the cap are "not soon": fail over, cool down for the cap only', async () => {
    const { chat, states } = setup(({ host }) => (host === 'a.test' ? fail(429, 'daily quota', { headers: { 'retry-after': '86400' } }) : ok()));
    await chat();
    expect(states[0].cooldowns[0].until).toBe(300_000);
  });

  it('no ping-pong: the backup also answering 429 is backed off on, the cooling primary is not touched', async () => {
    const script: Script = ({ host, n }) => (host === 'a.test' ? fail(429, 'primary busy', { headers: { 'retry-after': '30' } }) : n % 2 === 1 ? fail(429, 'backup busy') : ok());
    const { transport, chat, clock } = setup(script);
    for (let i = 0; i < 10; i++) {
      await chat().catch(() => undefined);
      await clock.advance(2_000);
    }
    const a = transport.calls.filter((c) => c.host === 'a.test');
    expect(a.map((c) => c.at)).toEqual([0]);
    // Each backup 429 (no Retry-After) is waited out on the backup for the default 1 s cooldown.
    const b = transport.calls.filter((c) => c.host === 'b.test').map((c) => c.at);
    for (let i = 1; i < b.length; i += 2) expect(b[i] - b[i - 1]).toBeGreaterThanOrEqual(1000);
    expect(clock.now()).toBeLessThan(30_000);
  });

  it('when every candidate is cooling, a short wait is taken in the route stage, then the soonest is tried', async () => {
    const script: Script = ({ n }) => (n === 1 ? fail(429, 'busy', { headers: { 'retry-after': '3' } }) : ok());
    const { transport, pipeline, clock, states } = setup(script, { maxAttemptsPerCandidate: 1 }, { models: { chat: [{ endpoint: 'a', model: 'x' }] } });
    const first = await drive(clock, pipeline.chat(REQ)).catch((e) => e);
    expect(isSwitchyardError(first)).toBe(true);
    await clock.advance(1_000);
    await drive(clock, pipeline.chat(REQ));
    expect(transport.calls.map((c) => c.at)).toEqual([0, 3_000]);
    expect(states.find((s) => s.waitedMs !== undefined)?.waitedMs).toBe(2_000);
  });

  it('when every candidate cools for long, the request fails fast without touching them', async () => {
    const { transport, chat } = setup(() => fail(429, 'busy', { headers: { 'retry-after': '20' } }));
    const first = await chat().catch((e) => e);
    expect(first.kind).toBe('all-candidates-failed');
    expect(first.status).toBe(429);
    const second = await chat().catch((e) => e);
    // Every candidate is rate-limited: a 429 that says when the first is back (issue 38), not a 503.
    expect(second).toMatchObject({ kind: 'rate-limit', status: 429 });
    expect(second.retryAfterMs).toBeGreaterThan(19_000);
    expect(second.retryAfterMs).toBeLessThanOrEqual(20_000 * 1.1);
    expect(hosts(transport)).toBe('ab');
  });

  it('a wait that would pass the deadline is not started', async () => {
    const { transport, chat } = setup(() => fail(429, 'busy', { headers: { 'retry-after': '2' } }), {}, { models: { chat: [{ endpoint: 'a', model: 'x' }] }, deadlineMs: 1_500 });
    const error = await chat().catch((e) => e);
    expect(error.kind).toBe('all-candidates-failed');
    expect(transport.calls.map((c) => c.at)).toEqual([0]);
  });
});

describe('endpoint failures', () => {
  it('a 500 is retried once on the same candidate after a 100–500 ms probe delay', async () => {
    const { transport, chat } = setup(({ host, n }) => (host === 'a.test' && n === 1 ? fail(500, 'oops') : ok()));
    await chat();
    expect(hosts(transport)).toBe('aa');
    expect(transport.calls[1].at).toBeGreaterThanOrEqual(100);
    expect(transport.calls[1].at).toBeLessThanOrEqual(500);
  });

  it('a persistent 503 gets maxAttemptsPerCandidate attempts, then fails over', async () => {
    const { transport, chat } = setup(({ host }) => (host === 'a.test' ? fail(503, 'down') : ok()), { maxAttemptsPerCandidate: 3 });
    await chat();
    expect(hosts(transport)).toBe('aaab');
    const [, second, third] = transport.calls.map((c) => c.at);
    expect(third - second).toBeGreaterThanOrEqual(100);
  });

  it('x-should-retry: false moves on at once', async () => {
    const { transport, chat } = setup(({ host }) => (host === 'a.test' ? fail(500, 'no', { headers: { 'x-should-retry': 'false' } }) : ok()));
    await chat();
    expect(hosts(transport)).toBe('ab');
  });

  it('a connection reset before headers is retried on the same candidate', async () => {
    const { transport, chat } = setup(({ host, n }) => (host === 'a.test' && n === 1 ? 'reset' : ok()));
    await chat();
    expect(hosts(transport)).toBe('aa');
  });

  it('a silent endpoint is abandoned after its timeout and never retried on the same route', async () => {
    const endpoints: EndpointConfig[] = [{ ...ENDPOINTS[0], timeouts: { attemptMs: 2_000 } }, ENDPOINTS[1]];
    const { transport, chat } = setup(({ host }) => (host === 'a.test' ? 'hang' : ok()), {}, { endpoints });
    await chat();
    expect(transport.calls.map((c) => [c.host, c.at])).toEqual([['a.test', 0], ['b.test', 2_000]]);
  });

  it('the retry budget turns retries into failovers when a deployment is down for everyone', async () => {
    const { transport, chat, pipeline } = setup(({ host }) => (host === 'a.test' ? fail(503, 'down') : ok()), { budget: { ratio: 0, minRetries: 3 } });
    for (let i = 0; i < 10; i++) await chat();
    expect(transport.count('a.test')).toBe(13);
    expect(await getRetryControl(pipeline).budget('a/x')).toEqual({ requests: 10, retries: 3, allowed: 3 });
  });
});

describe('cancellation and options', () => {
  it('a caller abort ends a route-stage cooldown wait at once', async () => {
    const { pipeline, clock, transport } = setup(() => fail(429, 'busy', { headers: { 'retry-after': '4' } }), { maxAttemptsPerCandidate: 1 }, { models: { chat: [{ endpoint: 'a', model: 'x' }] } });
    await drive(clock, pipeline.chat(REQ)).catch(() => undefined);
    const controller = new AbortController();
    const pending = pipeline.chat(REQ, { signal: controller.signal }).catch((e) => e);
    await clock.advance(1_000);
    controller.abort();
    const error = await pending;
    expect(error.kind).toBe('cancelled');
    expect(clock.now()).toBe(1_000);
    expect(transport.calls).toHaveLength(1);
  });

  it('a caller abort ends a Retry-After wait at once', async () => {
    const { pipeline, clock, transport } = setup(() => fail(429, 'busy', { headers: { 'retry-after': '3' } }), {}, { models: { chat: [{ endpoint: 'a', model: 'x' }] } });
    const controller = new AbortController();
    const pending = pipeline.chat(REQ, { signal: controller.signal }).catch((e) => e);
    await new Promise((r) => setImmediate(r));
    await clock.advance(1_000);
    controller.abort();
    expect((await pending).kind).toBe('cancelled');
    expect(transport.calls).toHaveLength(1);
  });

  it('bad options fail at creation with a coded error naming the field', () => {
    expect(() => retry({ maxAttemptsPerCandidate: 0 })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'maxAttemptsPerCandidate' }));
    expect(() => retry({ backoff: { probeMinMs: 600, probeMaxMs: 500 } })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'backoff.probeMinMs' }));
    expect(() => retry({ budget: { ratio: -1 } })).toThrow(/budget\.ratio/);
    expect(() => retry({ nope: 1 } as never)).toThrow(/SWITCHYARD|nope|unrecognized/i);
  });

  it('getRetryControl names the missing plugin', () => {
    const pipeline = createPipeline({ endpoints: ENDPOINTS, models: MODELS, providers: [testProvider] });
    expect(() => getRetryControl(pipeline)).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_MISSING' }));
  });
});
