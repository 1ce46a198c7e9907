import { createPipeline, seededRandom, VirtualClock, type AttemptOutcome, type DeploymentConfig, type RequestContext } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { router } from '../../router/src/index.js';
import { okCompletion, scriptedTransport, settle } from '../../router/test/support/scripted-transport.js';
import { getHealth, health, type HealthOptionsInput } from '../src/index.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

/** Upstreams whose status the test flips at will. */
function setup(deployments: DeploymentConfig[], options: HealthOptionsInput = {}, withRouter = false) {
  const clock = new VirtualClock();
  const status = new Map<string, number>();
  const transport = scriptedTransport(clock, (call) => {
    const code = status.get(call.host) ?? 200;
    return { status: code, delayMs: 100, body: code >= 300 ? { error: { message: 'down' } } : okCompletion(String(call.body.model)) };
  });
  const endpoints = [...new Set(deployments.map((d) => d.endpoint))].map((name) => ({ name, provider: 'test', baseUrl: `http://${name}/v1` }));
  const pipeline = createPipeline({
    endpoints,
    models: { chat: deployments },
    providers: [testProvider],
    plugins: [health(options), ...(withRouter ? [router()] : [])],
    clock,
    random: seededRandom(1),
    transport,
  });
  const changes: { deployment: string; healthy: boolean }[] = [];
  pipeline.events.on('health:change', ({ deployment, healthy }) => changes.push({ deployment, healthy }));
  const firsts: string[] = [];
  pipeline.events.on('attempt:start', ({ attempt, candidate }) => attempt === 1 && firsts.push(candidate.endpoint.name));
  const chat = () => settle(clock, pipeline.chat({ model: 'chat', messages: hi }).catch((e) => e));
  return { pipeline, clock, status, transport, changes, firsts, chat, monitor: getHealth(pipeline)! };
}

const primaryAndBackup: DeploymentConfig[] = [
  { endpoint: 'primary', model: 'm' },
  { endpoint: 'backup', model: 'm', priority: 1 },
];

describe('health: passive scoring through the pipeline', () => {
  it('marks a failing deployment unhealthy after the minimum samples and moves it behind the backup', async () => {
    const { status, changes, firsts, chat, monitor } = setup(primaryAndBackup);
    status.set('primary', 503);
    for (let i = 0; i < 4; i++) await chat();
    expect(monitor.isHealthy('primary/m')).toBe(true);
    expect(changes).toEqual([]);
    await chat();
    expect(changes).toEqual([{ deployment: 'primary/m', healthy: false }]);
    expect(monitor.score('primary/m')).toBe(0);
    firsts.length = 0;
    for (let i = 0; i < 5; i++) await chat();
    expect(firsts).toEqual(new Array(5).fill('backup'));
  });

  it('never ejects every deployment: when all are unhealthy, the least bad goes first', async () => {
    const { status, firsts, chat, monitor, transport } = setup([
      { endpoint: 'a', model: 'm' },
      { endpoint: 'b', model: 'm', priority: 1 },
    ]);
    status.set('a', 503);
    status.set('b', 503);
    for (let i = 0; i < 6; i++) await chat();
    expect(monitor.isHealthy('a/m') || monitor.isHealthy('b/m')).toBe(false);
    // One success lifts b above a; both stay in the list, least bad first.
    status.set('b', 200);
    await chat();
    status.set('b', 503);
    expect(monitor.score('b/m')).toBeGreaterThan(monitor.score('a/m'));
    firsts.length = 0;
    transport.calls.length = 0;
    const error = await chat();
    expect(firsts).toEqual(['b']);
    expect(transport.calls.map((c) => c.host)).toEqual(['b', 'a']);
    expect(error).toMatchObject({ kind: 'all-candidates-failed' });
  });

  it('in drop mode removes unhealthy deployments while a healthy one exists, and keeps them otherwise', async () => {
    const { status, chat, transport } = setup(primaryAndBackup, { unhealthy: 'drop' });
    status.set('primary', 503);
    for (let i = 0; i < 5; i++) await chat();
    transport.calls.length = 0;
    status.set('backup', 503);
    await chat();
    // backup was healthy (dropped primary); it fails, and there is nothing else to try.
    expect(transport.calls.map((c) => c.host)).toEqual(['backup']);
    for (let i = 0; i < 5; i++) await chat();
    transport.calls.length = 0;
    await chat();
    expect(transport.calls.map((c) => c.host).sort()).toEqual(['backup', 'primary']);
  });

  it('counts key, request and cancelled failures nowhere', async () => {
    const { status, chat, monitor } = setup(primaryAndBackup);
    status.set('primary', 401);
    for (let i = 0; i < 10; i++) await chat();
    expect(monitor.isHealthy('primary/m')).toBe(true);
    expect(monitor.snapshot()['primary/m']).toMatchObject({ healthy: true, samples: 0, score: 1 });
  });

  it('uses time to first token for streams', async () => {
    const { pipeline, monitor } = setup(primaryAndBackup, { latencyAlpha: 1, latencyWeight: 1, latencyTargetMs: 1_000 });
    const candidate = pipeline.candidatesFor('chat')[0];
    const outcome: AttemptOutcome = { attempt: 1, candidate, ok: true, outcome: 'success', latencyMs: 60_000, ttftMs: 500, phase: 'post-commit', stream: true, initiator: 'core' };
    await pipeline.hooks.recordAttempt.promise(outcome, {} as RequestContext);
    expect(monitor.snapshot()['primary/m'].latencyMs).toBe(500);
    expect(monitor.score('primary/m')).toBe(1);
  });

  it("records an attempt at its end as the core read it (the outcome's endedAt), else at the clock's time", async () => {
    const { pipeline, clock, monitor } = setup(primaryAndBackup, { ejectionJitter: 0, baseEjectionMs: 5_000 });
    const [primary, backup] = pipeline.candidatesFor('chat');
    const failure = (candidate: typeof primary, endedAt?: number): AttemptOutcome => ({ attempt: 1, candidate, ok: false, outcome: 'endpoint-failure', latencyMs: 100, phase: 'pre-commit', stream: false, initiator: 'core', ...(endedAt === undefined ? {} : { endedAt }) });
    const endedAt = clock.now() - 2_000;
    for (let i = 0; i < 5; i++) {
      await pipeline.hooks.recordAttempt.promise(failure(primary, endedAt), {} as RequestContext);
      await pipeline.hooks.recordAttempt.promise(failure(backup), {} as RequestContext);
    }
    const view = monitor.snapshot();
    // Ejected from the moment each fifth failure ended: the outcome's time, not a later reading of the clock.
    expect(view['primary/m'].ejection?.readmitAt).toBe(endedAt + 5_000);
    expect(view['backup/m'].ejection?.readmitAt).toBe(clock.now() + 5_000);
  });
});

describe('health: recovery', () => {
  it('takes a recovered deployment back gradually (slow start), then fully', async () => {
    const { status, clock, firsts, chat, changes, monitor } = setup(primaryAndBackup, { slowStartMs: 30_000 });
    status.set('primary', 503);
    for (let i = 0; i < 5; i++) await chat();
    expect(monitor.isHealthy('primary/m')).toBe(false);
    status.delete('primary');
    // The failures leave the window; the next routing decision sees a healthy score.
    await clock.advance(80_000);
    const shares: number[] = [];
    for (let slice = 0; slice < 3; slice++) {
      firsts.length = 0;
      const sliceStart = clock.now();
      while (clock.now() - sliceStart < 10_000) {
        await chat();
        await clock.advance(20);
      }
      shares.push(firsts.filter((f) => f === 'primary').length / firsts.length);
    }
    expect(changes.at(-1)).toEqual({ deployment: 'primary/m', healthy: true });
    // Ramp 10% → 100% over 30 s: average admission in each 10 s slice is about 25%, 55%, 85%.
    expect(shares[0]).toBeGreaterThan(0.12);
    expect(shares[0]).toBeLessThan(0.4);
    expect(shares[1]).toBeGreaterThan(shares[0]);
    expect(shares[2]).toBeGreaterThan(shares[1]);
    expect(shares[2]).toBeGreaterThan(0.7);
    firsts.length = 0;
    for (let i = 0; i < 20; i++) await chat();
    expect(firsts).toEqual(new Array(20).fill('primary'));
  });
});

describe('health: with the router', () => {
  it('the router keeps an unhealthy deployment demoted although its priority is the best', async () => {
    const { status, firsts, chat } = setup(
      [
        { endpoint: 'primary', model: 'm', priority: 0, weight: 10 },
        { endpoint: 'backup', model: 'm', priority: 1 },
      ],
      {},
      true,
    );
    status.set('primary', 503);
    for (let i = 0; i < 5; i++) await chat();
    firsts.length = 0;
    for (let i = 0; i < 10; i++) await chat();
    expect(firsts).toEqual(new Array(10).fill('backup'));
  });
});

describe('health: options', () => {
  it('rejects inconsistent thresholds and bad patterns with coded errors naming the field', () => {
    expect(() => health({ unhealthyBelow: 0.8, healthyAbove: 0.6 })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'healthyAbove' }));
    expect(() => health({ probes: { quality: { prompt: '2+2?', expect: { pattern: '(' } } } })).toThrow(/probes\.quality\.expect/);
    expect(() => health({ probes: { reachability: { intervalMs: -1 } } })).toThrow(/probes\.reachability\.intervalMs/);
  });
});
