import { createPipeline, defineProvider, runWithVirtualTime, seededRandom, sleep, VirtualClock, type Clock, type TimerHandle } from '@switchyard/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { getHealth, health, type HealthOptionsInput } from '../src/index.js';

/** The test codec plus a `GET /models` probe, forwarding max_tokens. */
const probingProvider = defineProvider({
  ...testProvider,
  id: 'probing',
  buildRequest(request, target, options) {
    const built = testProvider.buildRequest(request, target, options);
    return { ...built, body: JSON.stringify({ ...JSON.parse(built.body!), max_tokens: request.max_tokens }) };
  },
  probe: (target) => ({ method: 'GET' as const, path: '/models', headers: { authorization: `Bearer ${target.apiKey}` } }),
});

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Upstream {
  models: number;
  chat: number;
  answer: string;
  silent?: boolean;
}

async function upstream(state: Upstream): Promise<Loopback> {
  const server = await startLoopback((req, res) => {
    if (state.silent) return; // holds the socket open, never answers
    const status = req.url?.endsWith('/models') ? state.models : state.chat;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status >= 300 ? { error: { message: status === 400 ? 'max_tokens is too small' : 'unavailable' } } : req.url?.endsWith('/models') ? { data: [] } : completion(state.answer)));
  });
  servers.push(server);
  return server;
}

function pipelineFor(server: Loopback, options: HealthOptionsInput, clock: Clock = new VirtualClock()) {
  return createPipeline({
    endpoints: [{ name: 'up', provider: 'probing', baseUrl: server.url, apiKey: 'sk-test-123456789' }],
    models: { chat: [{ endpoint: 'up', model: 'm' }], other: [{ endpoint: 'up', model: 'm' }, { endpoint: 'up', model: 'n' }] },
    providers: [probingProvider],
    plugins: [health(options)],
    clock,
    random: seededRandom(5),
  });
}

const allDepths: HealthOptionsInput = {
  probes: {
    reachability: { intervalMs: 10_000 },
    completion: { intervalMs: 60_000, maxTokens: 64 },
    quality: { intervalMs: 300_000, prompt: 'What is 2+2?', expect: { pattern: '\\b4\\b' } },
  },
};

describe('health: active probes (loopback)', () => {
  it('runs each depth once per deployment through the provider codec and the transport', async () => {
    const state: Upstream = { models: 200, chat: 200, answer: 'It is 4.' };
    const server = await upstream(state);
    const pipeline = pipelineFor(server, allDepths);
    const monitor = getHealth(pipeline)!;
    const results = await monitor.runProbes();
    expect(results.map((r) => `${r.deployment}:${r.depth}:${r.ok}`).sort()).toEqual(
      ['up/m:completion:true', 'up/m:quality:true', 'up/m:reachability:true', 'up/n:completion:true', 'up/n:quality:true', 'up/n:reachability:true'].sort(),
    );
    const models = server.requests.filter((r) => r.path === '/v1/models');
    expect(models).toHaveLength(2);
    expect(models[0].headers.authorization).toBe('Bearer sk-test-123456789');
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => JSON.parse(r.body));
    expect(chats.map((c) => c.max_tokens).sort()).toEqual([16, 16, 64, 64]);
    expect(chats.find((c) => c.max_tokens === 16).messages[0].content).toBe('What is 2+2?');
    expect(monitor.snapshot()['up/m'].probes).toMatchObject({ reachability: { ok: true }, completion: { ok: true }, quality: { ok: true } });
    monitor.stop();
  });

  it('fails the quality probe when the answer does not match, and probe failures drive health', async () => {
    const state: Upstream = { models: 200, chat: 200, answer: 'I think it is 5.' };
    const server = await upstream(state);
    const pipeline = pipelineFor(server, { minSamples: 3, ...allDepths });
    const monitor = getHealth(pipeline)!;
    const changes: boolean[] = [];
    pipeline.events.on('health:change', ({ deployment, healthy }) => deployment === 'up/m' && changes.push(healthy));
    const [quality] = await monitor.runProbes(['quality']);
    expect(quality).toMatchObject({ ok: false, depth: 'quality' });
    expect(quality.error?.message).toContain('did not match');
    state.models = 503;
    await monitor.runProbes(['reachability']);
    await monitor.runProbes(['reachability']);
    expect(monitor.isHealthy('up/m')).toBe(false);
    expect(changes).toEqual([false]);
    state.models = 200;
    state.answer = '4';
    for (let i = 0; i < 4; i++) await monitor.runProbes();
    expect(monitor.isHealthy('up/m')).toBe(true);
    expect(changes).toEqual([false, true]);
  });

  it('reports a probe the vendor rejects (400) as a plugin error without touching health', async () => {
    const state: Upstream = { models: 200, chat: 400, answer: '' };
    const server = await upstream(state);
    const pipeline = pipelineFor(server, { minSamples: 1, probes: { completion: { intervalMs: 60_000 } } });
    const errors: string[] = [];
    pipeline.events.on('plugin-error', ({ stage }) => errors.push(stage));
    const monitor = getHealth(pipeline)!;
    const results = await monitor.runProbes();
    expect(results.every((r) => r.failure === 'probe')).toBe(true);
    expect(errors).toEqual(['probe:completion', 'probe:completion']);
    expect(monitor.score('up/m')).toBe(1);
  });

  it('times a silent endpoint out on the pipeline clock and counts it as a failure', async () => {
    const server = await upstream({ models: 200, chat: 200, answer: '', silent: true });
    const clock = new VirtualClock();
    const pipeline = pipelineFor(server, { probes: { reachability: { intervalMs: 60_000, timeoutMs: 2_000 } } }, clock);
    const monitor = getHealth(pipeline)!;
    const pending = monitor.runProbes();
    await vi.waitFor(() => expect(server.requests.length).toBe(2));
    await clock.advance(1_999);
    await clock.advance(1);
    const results = await pending;
    expect(results.map((r) => r.error?.kind)).toEqual(['timeout', 'timeout']);
    expect(monitor.snapshot()['up/m'].samples).toBe(1);
    expect(monitor.snapshot()['up/m'].successRate).toBe(0);
  });

  it('schedules each depth on its own jittered interval on the pipeline clock, and stop() ends it', async () => {
    const server = await upstream({ models: 200, chat: 200, answer: '4' });
    const clock = new VirtualClock();
    const pipeline = pipelineFor(server, { probes: { reachability: { intervalMs: 10_000, jitterMs: 1_000 }, completion: { intervalMs: 60_000 } } }, clock);
    const count = (path: string) => server.requests.filter((r) => r.path === path).length;
    // Every first probe falls inside its first interval.
    await clock.advance(10_000);
    await vi.waitFor(() => expect(count('/v1/models')).toBe(2));
    // Then one reachability probe per deployment every 10-11 s: 5 or 6 each within the next 55 s.
    await runWithVirtualTime(clock, sleep(clock, 55_000), { stepMs: 250 });
    await vi.waitFor(() => expect(count('/v1/models')).toBeGreaterThanOrEqual(2 + 10));
    expect(count('/v1/models')).toBeLessThanOrEqual(2 + 12);
    await vi.waitFor(() => expect(count('/v1/chat/completions')).toBe(2));
    getHealth(pipeline)!.stop();
    const before = server.requests.length;
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(600_000);
    expect(server.requests.length).toBe(before);
  });

  it('stops probing when the pipeline closes', async () => {
    const server = await upstream({ models: 200, chat: 200, answer: '4' });
    const clock = new VirtualClock();
    const pipeline = pipelineFor(server, { probes: { reachability: { intervalMs: 10_000 } } }, clock);
    expect(clock.pendingTimers()).toBeGreaterThan(0);
    await pipeline.close();
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(600_000);
    expect(server.requests).toHaveLength(0);
  });

  it('starts no probes unless configured, and never holds the process open', async () => {
    const server = await upstream({ models: 200, chat: 200, answer: '4' });
    const idle = new VirtualClock();
    pipelineFor(server, {}, idle);
    expect(idle.pendingTimers()).toBe(0);
    // A clock whose timers keep the process alive unless someone unrefs them.
    const handles: NodeJS.Timeout[] = [];
    const refClock: Clock = {
      now: () => Date.now(),
      setTimeout: (fn, ms) => {
        const h = setTimeout(fn, ms);
        handles.push(h);
        return h as TimerHandle;
      },
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    };
    const pipeline = pipelineFor(server, { probes: { reachability: { intervalMs: 3_600_000 } } }, refClock);
    expect(handles.length).toBe(2);
    expect(handles.every((h) => !h.hasRef())).toBe(true);
    getHealth(pipeline)!.stop();
  });
});
