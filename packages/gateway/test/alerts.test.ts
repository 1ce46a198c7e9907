/** The gateway tells people: breaker alerts and a parked key reach a real webhook receiver. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { alerts, getAlerts } from '@switchyard/plugin-alerts';
import { circuitBreaker, getBreaker } from '@switchyard/plugin-circuit-breaker';
import { quota } from '@switchyard/plugin-quota';
import { retry } from '@switchyard/plugin-retry';
import { VirtualClock } from '@switchyard/core';
import { answers, chatBody, fails, pipelineFor, raw, startGateway, stopAll, vendor, type Handler, type Loopback } from './support/harness.js';

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

  it('the 429 ping-pong (two vendors both rate-limiting, accurate Retry-After) at the default settings: one alert, for the requests no candidate answered', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 11, 5, 10));
    // Each vendor answers two requests per minute and says exactly when the next minute opens.
    const limited = (): Handler => {
      let window = -1;
      let used = 0;
      return (req, res, body) => {
        const now = Math.floor(clock.now() / 60_000);
        if (now !== window) [window, used] = [now, 0];
        if (used < 2) {
          used++;
          return answers(['ok'])(req, res, body);
        }
        const waitS = Math.ceil(((window + 1) * 60_000 - clock.now()) / 1000);
        return fails(429, 'rate limit reached', { type: 'rate_limit_error', code: 'rate_limit_exceeded', headers: { 'retry-after': String(waitS) } })(req, res, body);
      };
    };
    const a = await vendor(limited());
    const b = await vendor(limited());
    const hook = await webhookReceiver();
    const pipeline = pipelineFor({ vendors: { a, b }, extra: { clock, plugins: [retry(), alerts({ channels: [{ type: 'webhook', url: `${hook.url}/alerts` }] })] } });
    const gw = await startGateway(pipeline, { clock });
    // A request may wait out a short Retry-After on the virtual clock: time moves while it is in flight.
    const ask = async () => {
      let done = false;
      const reply = raw(gw.origin, '/v1/chat/completions', { body: chatBody() }).finally(() => (done = true));
      while (!done) {
        await new Promise((r) => setTimeout(r, 5));
        if (!done) await clock.advance(250);
      }
      return reply;
    };
    const statuses: number[] = [];
    // A client sending a request every 2 s for 3 minutes.
    for (let i = 0; i < 90; i++) {
      statuses.push((await ask()).status);
      await clock.advance(2_000);
      await getAlerts(pipeline)!.settled();
    }
    const refused = statuses.filter((s) => s === 429).length;
    // Never ping-pong: both vendors get about one call per window, the rest is refused with a 429.
    // Four answers a minute, the rest refused with a 429 (none a 503); each vendor hears one 429 per minute at most, never a storm.
    const minutes = Math.ceil((clock.now() - Date.UTC(2026, 11, 5, 10)) / 60_000);
    expect(statuses.length - refused).toBeLessThanOrEqual(4 * minutes);
    expect(refused).toBeGreaterThan(statuses.length / 2);
    expect(Math.max(a.requests.length, b.requests.length)).toBeLessThanOrEqual(3 * minutes);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const firing = hook.alerts().filter((n) => n.state === 'firing');
    expect(firing.map((n) => n.alert)).toEqual(['all-candidates-failed']);
    expect(firing[0]).toMatchObject({ model: 'chat', details: { heldBack: { kind: 'rate-limit', status: 429 } } });
  }, 60_000);
});
