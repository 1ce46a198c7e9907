/**
 * Recovery that follows the vendor: an ejected deployment takes a live trial request after an
 * ejection time that grows with repeated ejections, in step with the breaker's half-open probe.
 * Virtual time, the default plugins, no probes.
 */
import { createPipeline, seededRandom, VirtualClock, type Plugin } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { circuitBreaker } from '../../circuit-breaker/src/index.js';
import { retry } from '../../retry/src/index.js';
import { router } from '../../router/src/index.js';
import { okCompletion, scriptedTransport, settle } from '../../router/test/support/scripted-transport.js';
import { getHealth, health, Recovery } from '../src/index.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

/** `primary` is down from 0 until `outageMs`; a request every `everyMs`; which deployment answered each. */
async function outage(outageMs: number, everyMs: number, count: number, plugins: () => Plugin[]) {
  const clock = new VirtualClock(0);
  const start = clock.now();
  const transport = scriptedTransport(clock, (call) => {
    const down = call.host === 'primary' && clock.now() - start < outageMs;
    return { status: down ? 503 : 200, delayMs: 50, body: down ? { error: { message: 'overloaded' } } : okCompletion(String(call.body.model)) };
  });
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'test', baseUrl: 'http://primary/v1' },
      { name: 'backup', provider: 'test', baseUrl: 'http://backup/v1' },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'm' }, { endpoint: 'backup', model: 'm' }] },
    providers: [testProvider],
    plugins: plugins(),
    clock,
    random: seededRandom(7),
    transport,
  });
  const served: { at: number; by: string }[] = [];

  for (let i = 0; i < count; i++) {
    const wait = start + i * everyMs - clock.now();
    if (wait > 0) await clock.advance(wait);
    const at = clock.now() - start;
    const response = await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    served.push({ at, by: response.switchyard!.endpoint });
  }
  const primaryCalls = transport.calls.filter((c) => c.host === 'primary').length;
  return { served, primaryCalls, pipeline };
}

const defaults = () => [retry(), circuitBreaker(), health(), router()];

describe('health recovery at the defaults', () => {
  it('20 s outage, a request every 4 s: the primary serves again within 10 s of recovering, with no probes', async () => {
    const { served } = await outage(20_000, 4_000, 15, defaults);
    const back = served.find((s) => s.at >= 20_000 && s.by === 'primary');
    expect(back).toBeDefined();
    expect(back!.at - 20_000).toBeLessThanOrEqual(10_000);
    // Every request was answered, and after the first one back the primary keeps serving.
    expect(served.filter((s) => s.at < 20_000).every((s) => s.by === 'backup' || s.at === 0)).toBe(true);
  });

  it('60 s outage: back within 30 s, and the outage costs about one primary attempt per ejection, not one per request', async () => {
    const { served, primaryCalls } = await outage(60_000, 4_000, 25, defaults);
    const back = served.find((s) => s.at >= 60_000 && s.by === 'primary');
    expect(back!.at - 60_000).toBeLessThanOrEqual(30_000);
    expect(primaryCalls).toBeLessThan(served.filter((s) => s.at < 60_000).length);
  });

  it('with health alone (no breaker) the primary also comes back on its own', async () => {
    const { served } = await outage(20_000, 4_000, 15, () => [retry(), health(), router()]);
    const back = served.find((s) => s.at >= 20_000 && s.by === 'primary');
    expect(back!.at - 20_000).toBeLessThanOrEqual(10_000);
  });

  it('the health snapshot shows the ejection while the deployment is out', async () => {
    const { pipeline } = await outage(600_000, 4_000, 6, defaults);
    expect(getHealth(pipeline)!.snapshot()['primary/m']).toMatchObject({ healthy: false, ejection: { ejections: expect.any(Number), readmitAt: expect.any(Number) } });
  });
});

describe('Recovery', () => {
  const settings = { baseEjectionMs: 5_000, maxEjectionMs: 60_000, ejectionJitter: 0, trialLeaseMs: 30_000 };

  it('ejects for base × k, capped, and admits one trial at a time after it', () => {
    const r = new Recovery(settings);
    const periods: number[] = [];
    let now = 0;
    for (let k = 0; k < 14; k++) {
      r.eject(now, () => 0);
      periods.push(r.readmitAt() - now);
      now = r.readmitAt();
    }
    expect(periods).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 60, 60].map((s) => s * 1_000));
    expect(r.mayTrial(now - 1)).toBe(false);
    expect(r.mayTrial(now)).toBe(true);
    r.startTrial(now);
    expect(r.mayTrial(now + 1)).toBe(false);
    // A trial that never answers does not wedge the way back.
    expect(r.mayTrial(now + 30_000)).toBe(true);
  });

  it('waits for the breaker: no trial while its breaker is open', () => {
    const r = new Recovery(settings);
    r.eject(0, () => 0);
    r.breakerOpenUntil(12_000);
    expect(r.mayTrial(5_000)).toBe(false);
    expect(r.mayTrial(12_000)).toBe(true);
  });

  it('forgets the ejection count once the deployment stayed healthy for maxEjectionMs', () => {
    const r = new Recovery(settings);
    r.eject(0, () => 0);
    r.eject(5_000, () => 0);
    r.restored(15_000);
    r.eject(20_000, () => 0);
    expect(r.view().ejections).toBe(3);
    r.restored(35_000);
    r.eject(35_000 + 60_000, () => 0);
    expect(r.view()).toEqual({ ejections: 1, readmitAt: 100_000 });
  });
});
