import { createPipeline, defineProvider, seededRandom, VirtualClock, type AttemptOutcome, type DeploymentConfig, type RequestContext } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { okCompletion, scriptedTransport, settle, type ScriptedCall } from '../../router/test/support/scripted-transport.js';
import { getHealth, health, type HealthOptionsInput } from '../src/index.js';

/** The test codec plus a `GET /models` probe (the vendor's own health request). */
const probingProvider = defineProvider({
  ...testProvider,
  id: 'probing',
  probe: (target) => ({ method: 'GET' as const, path: '/models', headers: { authorization: `Bearer ${target.apiKey}` } }),
});

const deployments: DeploymentConfig[] = [
  { endpoint: 'api', model: 'big' },
  { endpoint: 'api', model: 'small' },
  { endpoint: 'local', model: 'qwen', priority: 1 },
];

/** `api` speaks through the probing codec, `local` has no probe of its own (an Ollama or vLLM box). */
function setup(options: HealthOptionsInput, delayMsOf: (call: ScriptedCall) => number = () => 100) {
  const clock = new VirtualClock();
  const transport = scriptedTransport(clock, (call) => ({ status: 200, delayMs: delayMsOf(call), body: call.url.endsWith('/chat/completions') ? okCompletion(String(call.body.model)) : { data: [] } }));
  const pipeline = createPipeline({
    endpoints: [
      { name: 'api', provider: 'probing', baseUrl: 'http://api/v1', apiKey: 'sk-api-123456789' },
      { name: 'local', provider: 'test', baseUrl: 'http://local/v1' },
    ],
    models: { chat: deployments },
    providers: [testProvider, probingProvider],
    plugins: [health(options)],
    clock,
    random: seededRandom(3),
    transport,
  });
  const count = (url: string) => transport.calls.filter((c) => c.url === url).length;
  return { pipeline, clock, transport, count, monitor: getHealth(pipeline) };
}

/** Virtual time in small steps, so each probe's chain of promises settles between timers. */
async function advance(clock: VirtualClock, ms: number, stepMs = 50): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) await clock.advance(stepMs);
}

describe('health: probe settings per endpoint and deployment', () => {
  it('probes each endpoint on its own path and interval, and a deployment can turn a depth off', async () => {
    const { clock, count, monitor } = setup({
      probes: { reachability: { intervalMs: 30_000, jitterMs: 0 } },
      endpoints: { local: { probes: { reachability: { path: '/health', intervalMs: 5_000 } } } },
      deployments: { 'api/small': { probes: { reachability: false } } },
    });
    await advance(clock, 60_000);
    // api/big: the vendor's /models every 30 s (the first inside the first interval) → 2.
    expect(count('http://api/v1/models')).toBe(2);
    // local/qwen: its own /health every 5-5.5 s → 11 or 12 in 60 s; api/small: none.
    expect(count('http://local/v1/health')).toBeGreaterThanOrEqual(11);
    expect(count('http://local/v1/health')).toBeLessThanOrEqual(12);
    expect(Object.keys(monitor.snapshot()).sort()).toEqual(['api/big', 'local/qwen']);
    expect(monitor.snapshot()['local/qwen'].probes.reachability).toMatchObject({ ok: true });
    monitor.stop();
  });

  it('turns a depth on for one endpoint alone, with an absolute URL for a health route at the server root', async () => {
    const { clock, count, transport, monitor } = setup({ endpoints: { local: { probes: { reachability: { path: 'http://local/health', intervalMs: 10_000 } } } } });
    await advance(clock, 30_000);
    expect(count('http://local/health')).toBeGreaterThanOrEqual(2);
    expect(transport.calls.every((c) => c.url === 'http://local/health')).toBe(true);
    monitor.stop();
  });

  it('a probe that answers slower than its latency limit counts as unhealthy', async () => {
    const { pipeline, clock, monitor } = setup(
      {
        minSamples: 3,
        probes: { completion: { intervalMs: 60_000, timeoutMs: 5_000 } },
        endpoints: { local: { probes: { completion: { maxLatencyMs: 1_000 } } } },
      },
      () => 1_500,
    );
    const changes: string[] = [];
    pipeline.events.on('health:change', ({ deployment, healthy }) => changes.push(`${deployment}:${healthy}`));
    const [first] = (await settle(clock, monitor.runProbes(['completion']))).filter((r) => r.deployment === 'local/qwen');
    expect(first).toMatchObject({ ok: false, failure: 'endpoint', latencyMs: 1_500 });
    expect(first.error).toMatchObject({ kind: 'timeout' });
    expect(first.error?.message).toContain('over its 1000 ms limit');
    await settle(clock, monitor.runProbes(['completion']));
    await settle(clock, monitor.runProbes(['completion']));
    // The same 1.5 s answers are fine where no limit applies.
    expect(changes).toEqual(['local/qwen:false']);
    expect(monitor.isHealthy('api/big')).toBe(true);
    monitor.stop();
  });

  it('scores a deployment against its own latency target', async () => {
    const { pipeline, monitor } = setup({ latencyAlpha: 1, latencyWeight: 1, latencyTargetMs: 1_000, endpoints: { local: { latencyTargetMs: 4_000 } } });
    for (const candidate of pipeline.candidatesFor('chat')) {
      const outcome: AttemptOutcome = { attempt: 1, candidate, ok: true, outcome: 'success', latencyMs: 4_000, phase: 'pre-commit', stream: false, initiator: 'core' };
      await pipeline.hooks.recordAttempt.promise(outcome, {} as RequestContext);
    }
    expect(monitor.score('local/qwen')).toBe(1);
    expect(monitor.score('api/big')).toBeCloseTo(0.25, 5);
  });

  it('rejects overrides that name nothing, or that leave a probe invalid, with coded errors naming the path', () => {
    const make = (options: HealthOptionsInput) => () => setup(options);
    expect(make({ endpoints: { nope: { latencyTargetMs: 1 } } })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'endpoints.nope', message: expect.stringContaining('unknown endpoint "nope" (known: api, local)') }));
    expect(make({ deployments: { 'api/huge': { latencyTargetMs: 1 } } })).toThrow(expect.objectContaining({ path: 'deployments.api/huge' }));
    expect(make({ deployments: { 'api/big': { probes: { quality: { intervalMs: 60_000 } } } } })).toThrow(expect.objectContaining({ path: 'deployments.api/big.probes.quality.cases' }));
    expect(make({ probes: { reachability: { timeoutMs: 1_000 } }, endpoints: { api: { probes: { reachability: { maxLatencyMs: 2_000 } } } } })).toThrow(expect.objectContaining({ path: 'endpoints.api.probes.reachability.maxLatencyMs' }));
    expect(() => health({ probes: { reachability: { path: 'health' } } })).toThrow(/probes\.reachability\.path/);
    expect(() => health({ endpoints: { api: { probes: { reachability: { intervalMs: 0 } } } } })).toThrow(/endpoints\.api\.probes\.reachability/);
  });
});
