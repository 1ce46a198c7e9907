/** The gateway tells people: breaker alerts and a parked key reach a real webhook receiver. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { alerts, getAlerts } from '@switchyard/plugin-alerts';
import { circuitBreaker, getBreaker } from '@switchyard/plugin-circuit-breaker';
import { quota } from '@switchyard/plugin-quota';
import { answers, fails, pipelineFor, startGateway, stopAll, vendor, type Loopback } from './support/harness.js';

afterEach(stopAll);

async function webhookReceiver(): Promise<Loopback & { alerts(): { alert: string; state: string; deployment: string | null; details: Record<string, unknown> }[] }> {
  const hook = await vendor((_req, res) => {
    res.writeHead(200);
    res.end();
  });
  return Object.assign(hook, { alerts: () => hook.requests.map((r) => JSON.parse(r.body)) });
}

/** Waits until `condition()` holds (calling `poke` between checks), failing after `withinMs`. */
async function eventually(condition: () => boolean, withinMs: number, poke?: () => Promise<unknown>): Promise<void> {
  await vi.waitFor(
    async () => {
      if (condition()) return;
      await poke?.();
      if (!condition()) throw new Error(`condition not met within ${withinMs} ms`);
    },
    { timeout: withinMs, interval: 50 },
  );
}

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('gateway alerts', () => {
  it('primary down: exactly one breaker-open naming the deployment within 10 s; primary back: one breaker-closed', async () => {
    let primaryUp = false;
    const down = fails(500, 'primary is down');
    const up = answers(['from primary']);
    const primary = await vendor((req, res, body) => (primaryUp ? up(req, res, body) : down(req, res, body)));
    const backup = await vendor(answers(['from backup']));
    const hook = await webhookReceiver();
    const pipeline = pipelineFor({
      vendors: { primary, backup },
      extra: { plugins: [circuitBreaker({ consecutiveFailures: 3, baseOpenMs: 300, maxOpenMs: 300, openJitter: 0 }), alerts({ channels: [{ type: 'webhook', url: `${hook.url}/alerts` }] })] },
    });
    const { client } = await startGateway(pipeline);
    const startedAt = Date.now();
    for (let i = 0; i < 6; i++) expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('from backup');
    await eventually(() => hook.alerts().some((a) => a.alert === 'breaker-open'), 10_000);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    await getAlerts(pipeline)!.settled();
    // More traffic while it stays down (and half-open probes that fail again) is still the same incident.
    await vi.waitFor(async () => expect((await getBreaker(pipeline).getState('primary/primary-model')).state).toBe('half-open'), { timeout: 5_000, interval: 20 });
    for (let i = 0; i < 3; i++) await client.chat.completions.create(ask);
    await getAlerts(pipeline)!.settled();
    const opened = hook.alerts().filter((a) => a.alert === 'breaker-open');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ state: 'firing', deployment: 'primary/primary-model', endpoint: 'primary', model: 'primary-model' });

    primaryUp = true;
    await eventually(() => hook.alerts().some((a) => a.alert === 'breaker-closed'), 10_000, () => client.chat.completions.create(ask));
    for (let i = 0; i < 3; i++) expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('from primary');
    await getAlerts(pipeline)!.settled();
    expect(hook.alerts().map((a) => `${a.alert}:${a.state}:${a.deployment}`)).toEqual(['breaker-open:firing:primary/primary-model', 'breaker-closed:resolved:primary/primary-model']);
  });

  it('a 402 / insufficient balance raises key-parked with reason payment; the request is served by the backup', async () => {
    const primary = await vendor(fails(402, 'Insufficient Balance', { type: 'insufficient_quota', code: 'insufficient_quota' }));
    const backup = await vendor(answers(['from backup']));
    const hook = await webhookReceiver();
    const pipeline = pipelineFor({ vendors: { primary, backup }, extra: { plugins: [quota(), alerts({ channels: [{ type: 'webhook', url: `${hook.url}/alerts` }] })] } });
    const { client } = await startGateway(pipeline);
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('from backup');
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('from backup');
    await getAlerts(pipeline)!.settled();
    const parked = hook.alerts();
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ alert: 'key-parked', state: 'firing', deployment: 'primary/primary-model', details: { reason: 'payment', keyId: 'primary#0' } });
    expect(JSON.stringify(parked[0])).not.toContain('sk-vendor');
    // The parked key was not called again.
    expect(primary.requests).toHaveLength(1);
  });
});
