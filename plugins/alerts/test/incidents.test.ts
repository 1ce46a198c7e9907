/** One notice per incident, reminders, retries, and a webhook that can never slow a request. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { candidateRef, createPipeline, VirtualClock } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { quota } from '@switchyard/plugin-quota';
import { completion, startLoopback } from '../../../packages/core/test/support/loopback.js';
import { alerts, getAlerts } from '../src/index.js';
import { hangingReceiver, pipelineWithAlerts, receiver, stopAll } from './receivers.js';

afterEach(stopAll);

async function until(condition: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(condition(), 'condition not met within 15 s').toBe(true), { timeout: 15_000, interval: 10 });
}

describe('incidents', () => {
  it('announces an incident once, reminds at most every repeatMs, and resolves once', async () => {
    const hook = await receiver();
    const { pipeline, clock, settled } = pipelineWithAlerts({ repeatMs: 60_000, channels: [{ type: 'webhook', url: `${hook.root}/h` }] });
    const open = () => pipeline.events.emit('breaker:open', { deployment: 'primary/gpt-x', until: clock.now() + 5000, reason: 'failures' });
    open();
    open();
    await settled();
    await clock.advance(30_000);
    open();
    await settled();
    expect(hook.bodies().map((b) => b.details.reminder)).toEqual([false]);
    await clock.advance(30_000); // the reminder timer fires at repeatMs
    await settled();
    expect(hook.bodies().map((b) => b.details.reminder)).toEqual([false, true]);
    pipeline.events.emit('breaker:close', { deployment: 'primary/gpt-x' });
    pipeline.events.emit('breaker:close', { deployment: 'primary/gpt-x' });
    await settled();
    expect(hook.bodies().map((b) => `${b.alert}:${b.state}`)).toEqual(['breaker-open:firing', 'breaker-open:firing', 'breaker-closed:resolved']);
    expect(hook.bodies()[2].details.firingForMs).toBe(60_000);
    await clock.advance(120_000);
    await settled();
    expect(hook.requests).toHaveLength(3);
  });

  it('two pipelines on one store (a reload, or two gateways) announce an incident once', async () => {
    const hook = await receiver();
    const first = pipelineWithAlerts({ channels: [{ type: 'webhook', url: `${hook.root}/h` }] });
    const second = pipelineWithAlerts({ channels: [{ type: 'webhook', url: `${hook.root}/h` }] }, { clock: first.clock, store: first.pipeline.store });
    for (const p of [first.pipeline, second.pipeline]) p.events.emit('breaker:open', { deployment: 'primary/gpt-x', until: 0, reason: 'failures' });
    await Promise.all([first.settled(), second.settled()]);
    for (const p of [first.pipeline, second.pipeline]) p.events.emit('breaker:close', { deployment: 'primary/gpt-x' });
    await Promise.all([first.settled(), second.settled()]);
    expect(hook.bodies().map((b) => b.alert)).toEqual(['breaker-open', 'breaker-closed']);
  });

  it('success-rate-below over the sliding window, rate-limited, degraded and budget-threshold', async () => {
    const hook = await receiver();
    const { pipeline, clock, settled } = pipelineWithAlerts({
      channels: [{ type: 'webhook', url: `${hook.root}/h` }],
      successRate: { target: 0.9, windowMs: 60_000, minAttempts: 10 },
      rateLimited: { count: 3, windowMs: 10_000 },
      degraded: { count: 2, windowMs: 10_000 },
    });
    const candidate = candidateRef(pipeline.candidatesFor('chat')[0]);
    const attempt = (ok: boolean, outcome = ok ? 'success' : 'endpoint-failure') =>
      pipeline.events.emit('attempt:end', { requestId: 'r', attempt: 1, candidate, ok, outcome: outcome as never, latencyMs: 5, phase: 'pre-commit', stream: false, initiator: 'core' });
    for (let i = 0; i < 8; i++) attempt(true);
    attempt(false);
    attempt(false); // 8/10 = 80 % < 90 %
    for (let i = 0; i < 3; i++) attempt(false, 'rate-limited');
    pipeline.events.emit('degraded', { requestId: 'r', level: 'stale-cache' });
    pipeline.events.emit('degraded', { requestId: 'r', level: 'stale-cache' });
    pipeline.events.emit('quota:threshold', { scope: 'deployment:primary/gpt-x', limit: 'rpm', level: 0.8, used: 8, max: 10 });
    pipeline.events.emit('quota:threshold', { scope: 'deployment:primary/gpt-x', limit: 'rpm', level: 0.5, used: 5, max: 10 });
    await settled();
    expect(hook.bodies().map((b) => b.alert)).toEqual(['success-rate-below', 'rate-limited', 'degraded', 'budget-threshold']);
    expect(hook.bodies()[3]).toMatchObject({ severity: 'warning', deployment: 'primary/gpt-x', details: { level: 0.8, used: 8, max: 10 } });
    // The window slides: after it passes, successes clear both the SLO and the 429 incidents.
    await clock.advance(61_000);
    for (let i = 0; i < 10; i++) attempt(true);
    await settled();
    expect(hook.bodies().slice(4).map((b) => `${b.alert}:${b.state}`)).toEqual(['rate-limited:resolved', 'success-rate-below:resolved']);
  });

  it('all-candidates-failed is a rate over its window: one request failing everywhere pages nobody', async () => {
    const hook = await receiver();
    const { pipeline, clock, settled } = pipelineWithAlerts({ channels: [{ type: 'webhook', url: `${hook.root}/h` }] });
    const candidate = candidateRef(pipeline.candidatesFor('chat')[0]);
    const failure = Object.assign(new Error('every candidate failed'), { kind: 'all-candidates-failed', status: 502, code: 'SWITCHYARD_ERR_ALL_CANDIDATES_FAILED' });
    const end = (ok: boolean, model = 'chat') =>
      pipeline.events.emit('request:end', {
        requestId: 'r',
        ok,
        model,
        stream: false,
        latencyMs: 5,
        error: ok ? undefined : (failure as never),
        attempts: [{ attempt: 1, candidate, ok, outcome: ok ? 'success' : 'endpoint-failure', latencyMs: 5, phase: 'pre-commit', stream: false, initiator: 'core' }],
      });
    // The defaults: 5 within 5 minutes, and at least 5 % of the model's requests.
    end(false);
    await settled();
    expect(hook.requests).toHaveLength(0);
    // A busy model: 4 more failures among 200 requests stay under 5 %.
    for (let i = 0; i < 200; i++) end(true, 'busy');
    for (let i = 0; i < 5; i++) end(false, 'busy');
    await settled();
    expect(hook.requests).toHaveLength(0);
    // Past the window the first failure no longer counts: four more are still not five.
    await clock.advance(300_000);
    for (let i = 0; i < 4; i++) end(false);
    await settled();
    expect(hook.requests).toHaveLength(0);
    end(false);
    await settled();
    expect(hook.bodies().map((b) => `${b.alert}:${b.state}:${b.model}`)).toEqual(['all-candidates-failed:firing:chat']);
    expect(hook.bodies()[0].details).toMatchObject({ failed: 5, requests: 5, windowMs: 300_000 });
    expect(hook.bodies()[0].details.lastAttempts).toHaveLength(1);
    // A success while the window still holds five failures clears nothing; once they aged out, it resolves.
    end(true);
    await settled();
    expect(hook.requests).toHaveLength(1);
    await clock.advance(300_000);
    end(true);
    await settled();
    expect(hook.bodies().map((b) => `${b.alert}:${b.state}`)).toEqual(['all-candidates-failed:firing', 'all-candidates-failed:resolved']);
  });

  it("a gateway key's budget: soft and hard thresholds are incidents of their own, resolved when the spend is below them again", async () => {
    const hook = await receiver();
    const { pipeline, settled } = pipelineWithAlerts({ channels: [{ type: 'webhook', url: `${hook.root}/h` }] });
    const budget = (level: 'soft' | 'hard' | 'none', spentUsd: number) =>
      pipeline.events.emit('tenant:budget', { scope: 'key', id: 'key_0123456789abcdef', name: 'team-a-app', period: 'month', window: '2026-12', level, spentUsd, limitUsd: 50 });
    budget('soft', 40);
    await settled();
    budget('soft', 41); // a second gateway saw it too
    budget('hard', 50);
    await settled();
    budget('none', 0);
    await settled();
    const sent = hook.bodies().map((b) => `${b.details.level}:${b.state}:${b.severity}`);
    expect(sent).toEqual(['soft:firing:warning', 'hard:firing:critical', 'hard:resolved:info', 'soft:resolved:info']);
    expect(hook.bodies()[0]).toMatchObject({ alert: 'tenant-budget', message: 'the month budget of key team-a-app reached its soft threshold: $40.00 of $50.00 spent in 2026-12' });
    expect(hook.bodies()[1].message).toContain('its requests are refused');
    expect(hook.bodies()[0].details).toMatchObject({ scope: 'key', id: 'key_0123456789abcdef', dedupKey: 'tenant-budget:key:key_0123456789abcdef:month:soft' });
  });

  it('retries a failing webhook with backoff on the clock, then gives up and says so without the URL', async () => {
    let calls = 0;
    const flaky = await startLoopback((_req, res) => {
      calls++;
      res.writeHead(calls <= 2 ? 500 : 200);
      res.end();
    });
    const broken = await receiver(503);
    const { pipeline, clock, settled } = pipelineWithAlerts({
      delivery: { retries: 2, backoffMs: 1000 },
      channels: [
        { type: 'webhook', url: `${flaky.url}/hook-TOKEN-1` },
        { type: 'slack', url: `${broken.root}/services/SECRET-TOKEN`, name: 'ops-slack' },
      ],
    });
    const errors: string[] = [];
    pipeline.events.on('plugin-error', ({ error }) => errors.push(String((error as Error).message)));
    pipeline.events.emit('breaker:open', { deployment: 'primary/gpt-x', until: 0, reason: 'failures' });
    const stats = () => getAlerts(pipeline)!.stats();
    // Both channels failed once and wait out their first backoff (1 s) on the virtual clock.
    await until(() => stats()['webhook[0]'].retries === 1 && stats()['ops-slack'].retries === 1);
    await clock.advance(999);
    expect(calls).toBe(1);
    await clock.advance(1);
    await until(() => stats()['webhook[0]'].retries === 2 && stats()['ops-slack'].retries === 2);
    expect(calls).toBe(2);
    await clock.advance(2000); // the second backoff
    await settled();
    expect(calls).toBe(3);
    expect(broken.requests).toHaveLength(3);
    expect(stats()).toEqual({ 'webhook[0]': { sent: 1, failed: 0, dropped: 0, retries: 2 }, 'ops-slack': { sent: 0, failed: 1, dropped: 0, retries: 2 } });
    expect(errors).toEqual(['ops-slack: the receiver answered HTTP 503']);
    expect(errors.join()).not.toContain('TOKEN');
    await flaky.close();
  });

  it('a webhook that hangs delays no request, and its queue stays bounded', async () => {
    const hanging = await hangingReceiver();
    const vendor = await startLoopback((_req, res) => {
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Insufficient balance', type: 'insufficient_quota', code: 'insufficient_quota' } }));
    });
    const backup = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion('hello')));
    });
    const clock = new VirtualClock();
    const pipeline = createPipeline({
      endpoints: [
        { name: 'primary', provider: 'openai', baseUrl: vendor.url, apiKey: 'sk-a' },
        { name: 'backup', provider: 'openai', baseUrl: backup.url, apiKey: 'sk-b' },
      ],
      models: { chat: [{ endpoint: 'primary', model: 'gpt-x' }, { endpoint: 'backup', model: 'gpt-y' }] },
      providers: [openaiProvider],
      clock,
      plugins: [quota(), alerts({ delivery: { maxQueue: 2, timeoutMs: 60_000 }, channels: [{ type: 'webhook', url: `${hanging.root}/h` }] })],
    });
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) {
      pipeline.events.emit('health:change', { deployment: `d${i}/m`, healthy: false, score: 0 });
      answers.push((await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content as string);
    }
    // Every request answered while the receiver still holds the first notice's connection open.
    expect(answers).toEqual(['hello', 'hello', 'hello', 'hello']);
    expect(hanging.requests).toHaveLength(1); // the first notice, still unanswered
    expect(getAlerts(pipeline)!.stats()['webhook[0]'].sent).toBe(0);
    expect(getAlerts(pipeline)!.stats()['webhook[0]'].dropped).toBeGreaterThan(0);
    await pipeline.close();
    await Promise.all([vendor.close(), backup.close()]);
  });
});
