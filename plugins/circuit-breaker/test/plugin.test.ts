/** The breaker plugin inside a real pipeline, on virtual time with an in-process transport. */
import { describe, expect, it } from 'vitest';
import { createPipeline, seededRandom, VirtualClock, type EndpointConfig, type ModelsConfig } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { drive } from '../../retry/test/support/drive.js';
import { fail, ok, scriptedTransport, type Script } from '../../retry/test/support/in-process.js';
import { circuitBreaker, getBreaker, type BreakerPluginOptionsInput } from '../src/index.js';

const ENDPOINTS: EndpointConfig[] = [
  { name: 'a', provider: 'test', baseUrl: 'http://a.test/v1' },
  { name: 'b', provider: 'test', baseUrl: 'http://b.test/v1' },
];
const MODELS: ModelsConfig = { chat: [{ endpoint: 'a', model: 'x' }, { endpoint: 'b', model: 'y' }] };
const REQ = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

function setup(script: Script, options: BreakerPluginOptionsInput = {}, config: { endpoints?: EndpointConfig[]; models?: ModelsConfig } = {}) {
  const clock = new VirtualClock(0);
  const transport = scriptedTransport(script, () => clock.now());
  const pipeline = createPipeline({ endpoints: config.endpoints ?? ENDPOINTS, models: config.models ?? MODELS, providers: [testProvider], plugins: [circuitBreaker({ openJitter: 0, ...options })], clock, random: seededRandom(5), transport });
  const events: string[] = [];
  pipeline.events.on('breaker:open', (e) => events.push(`open ${e.deployment}`));
  pipeline.events.on('breaker:half-open', (e) => events.push(`half-open ${e.deployment}`));
  pipeline.events.on('breaker:close', (e) => events.push(`close ${e.deployment}`));
  const chat = () => drive(clock, pipeline.chat(REQ)).catch((e) => e);
  return { clock, transport, pipeline, events, chat, breaker: getBreaker(pipeline) };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const aCalls = (t: { calls: { host: string }[] }) => t.calls.filter((c) => c.host === 'a.test').length;

describe('what counts', () => {
  it('endpoint failures open the breaker and later requests skip the deployment', async () => {
    const { transport, chat, breaker, events } = setup(({ host }) => (host === 'a.test' ? fail(500, 'boom') : ok()));
    for (let i = 0; i < 8; i++) await chat();
    expect(aCalls(transport)).toBe(5);
    expect(events).toEqual(['open a/x']);
    expect(await breaker.getState('a/x')).toMatchObject({ state: 'open', failures: 5, trips: 1, openUntil: 5_000 });
  });

  it.each([
    ['429 rate limits', () => fail(429, 'slow down', { headers: { 'retry-after': '1' } })],
    ['401 key failures', () => fail(401, 'bad key')],
    ['400 request failures', () => fail(400, 'bad request')],
    ['404 misconfiguration', () => fail(404, 'no such model')],
  ])('%s never count', async (_name, answer) => {
    const { transport, chat, breaker } = setup(({ host }) => (host === 'a.test' ? answer() : ok()));
    for (let i = 0; i < 12; i++) await chat();
    expect(aCalls(transport)).toBe(12);
    expect(await breaker.getState('a/x')).toMatchObject({ state: 'closed', failures: 0, window: { calls: 0, failures: 0 } });
  });

  it('cancelled attempts never count', async () => {
    const { pipeline, clock, breaker } = setup(() => 'hang');
    for (let i = 0; i < 6; i++) {
      const controller = new AbortController();
      const pending = pipeline.chat(REQ, { signal: controller.signal }).catch((e) => e);
      await clock.advance(10);
      controller.abort();
      expect((await pending).kind).toBe('cancelled');
    }
    expect((await breaker.getState('a/x')).state).toBe('closed');
  });

  it('breakers are per key on an endpoint with several keys', async () => {
    const endpoints: EndpointConfig[] = [{ ...ENDPOINTS[0], apiKeys: ['sk-one-1111', 'sk-two-2222'] }, ENDPOINTS[1]];
    const { chat, breaker } = setup(({ request }) => (request.headers.authorization === 'Bearer sk-one-1111' ? fail(503, 'down') : ok()), {}, { endpoints });
    for (let i = 0; i < 6; i++) await chat();
    expect((await breaker.getState('a/x#0')).state).toBe('open');
    expect((await breaker.getState('a/x#1')).state).toBe('closed');
  });
});

describe('half-open', () => {
  async function tripped(script: Script, options: BreakerPluginOptionsInput = {}) {
    let down = true;
    const s = setup((call) => (call.host === 'a.test' && down ? fail(503, 'down') : script(call)), options);
    for (let i = 0; i < 5; i++) await s.chat();
    await s.clock.advance(5_000);
    down = false;
    return s;
  }

  it('admits exactly one probe while it is in flight; a probe that times out re-opens it', async () => {
    const s = await tripped(({ host }) => (host === 'a.test' ? 'hang' : ok()), { probeLeaseMs: 60_000 });
    const probe = s.pipeline.chat(REQ).catch((e) => e);
    await turn();
    for (let i = 0; i < 3; i++) await s.chat();
    expect(aCalls(s.transport)).toBe(6);
    expect(await s.breaker.getState('a/x')).toMatchObject({ state: 'half-open' });
    await drive(s.clock, probe);
    expect(s.events).toEqual(['open a/x', 'half-open a/x', 'open a/x']);
    expect(await s.breaker.getState('a/x')).toMatchObject({ state: 'open', trips: 2 });
  });

  it('a hung probe lets another request probe once its lease expires', async () => {
    const s = await tripped(({ host }) => (host === 'a.test' ? 'hang' : ok()), { probeLeaseMs: 2_000 });
    void s.pipeline.chat(REQ).catch(() => undefined);
    await turn();
    await s.clock.advance(1_999);
    void s.pipeline.chat(REQ).catch(() => undefined);
    await turn();
    expect(aCalls(s.transport)).toBe(6);
    await s.clock.advance(1);
    void s.pipeline.chat(REQ).catch(() => undefined);
    await turn();
    expect(aCalls(s.transport)).toBe(7);
  });

  it('a successful probe closes it and resets the open-time escalation', async () => {
    const s = await tripped(() => ok());
    await s.chat();
    expect(s.events).toEqual(['open a/x', 'half-open a/x', 'close a/x']);
    expect(await s.breaker.getState('a/x')).toMatchObject({ state: 'closed', trips: 0, failures: 0 });
  });

  it('a 429 probe neither closes nor re-opens it; the next request probes again', async () => {
    const s = await tripped(({ host, n }) => (host === 'a.test' && n === 6 ? fail(429, 'busy') : ok()));
    await s.chat();
    expect((await s.breaker.getState('a/x')).state).toBe('half-open');
    await s.chat();
    expect(aCalls(s.transport)).toBe(7);
    expect((await s.breaker.getState('a/x')).state).toBe('closed');
  });

  it('a failed probe re-opens it for twice as long', async () => {
    const s = await tripped(({ host }) => (host === 'a.test' ? fail(502, 'bad gateway') : ok()));
    await s.chat();
    expect(await s.breaker.getState('a/x')).toMatchObject({ state: 'open', trips: 2, openUntil: 5_000 + 10_000 });
  });

  it('a granted probe that is never sent is released when the request ends', async () => {
    const models: ModelsConfig = { chat: [{ endpoint: 'b', model: 'y' }, { endpoint: 'a', model: 'x', priority: 1 }] };
    const s = setup(({ host }) => (host === 'a.test' ? fail(503, 'down') : ok()), { probeLeaseMs: 60_000 }, { models });
    await s.breaker.forceOpen('a/x', 1_000);
    await s.clock.advance(1_000);
    await s.chat();
    await s.chat();
    expect(aCalls(s.transport)).toBe(0);
    expect(s.events).toEqual(['open a/x', 'half-open a/x']);
  });
});

describe('controls and fail-fast', () => {
  it('when every breaker is open the request fails fast with no-candidate, after the degrade stage', async () => {
    const { transport, chat, breaker, pipeline } = setup(() => ok());
    await breaker.forceOpen('a/x');
    await breaker.forceOpen('b/y', 10_000);
    const error = await chat();
    expect(error.kind).toBe('no-candidate');
    expect(transport.calls).toHaveLength(0);
    pipeline.hooks.degrade.tapPromise('canned', async () => ({ level: 'canned', response: { id: 'd', object: 'chat.completion', created: 0, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: 'later' }, finish_reason: 'stop' }] } }));
    const degraded = await chat();
    expect(degraded.switchyard.degraded).toBe('canned');
    await breaker.forceClose('a/x');
    expect((await chat()).choices[0].message.content).toBe('ok');
  });

  it('the retry stage never retries on an open breaker', async () => {
    const { transport, chat, pipeline } = setup(({ host }) => (host === 'a.test' ? fail(500, 'boom') : ok()), { consecutiveFailures: 1 });
    pipeline.hooks.retry.tapPromise('always-retry', async () => ({ action: 'retry', delayMs: 10 }));
    await chat();
    expect(transport.calls.map((c) => c.host)).toEqual(['a.test', 'b.test']);
  });

  it('bad options fail at creation with a coded error naming the field; a missing plugin is named', () => {
    expect(() => circuitBreaker({ failureRatio: 0 })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'failureRatio' }));
    expect(() => circuitBreaker({ baseOpenMs: 90_000 })).toThrow(expect.objectContaining({ path: 'baseOpenMs' }));
    const bare = createPipeline({ endpoints: ENDPOINTS, models: MODELS, providers: [testProvider] });
    expect(() => getBreaker(bare)).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_MISSING' }));
  });
});

describe('N failures within T (option)', () => {
  it('an intermittently failing deployment opens on the 3rd failure within a minute, successes in between', async () => {
    let n = 0;
    const { clock, chat, events } = setup(({ host }) => (host === 'a.test' && n++ % 2 === 0 ? fail(500, 'boom') : ok()), { failuresWithin: { count: 3, windowMs: 60_000 } });
    for (let i = 0; i < 4; i++) {
      await chat();
      await clock.advance(10_000);
    }
    expect(events).toEqual([]); // failures at 0 and 20 s
    await chat();
    expect(events).toEqual(['open a/x']); // the third at 40 s
  });

  it('is checked at load', () => {
    expect(() => circuitBreaker({ failuresWithin: { count: 0, windowMs: 60_000 } })).toThrow(/failuresWithin\.count/);
  });
});
