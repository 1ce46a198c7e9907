import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { seededRandom, VirtualClock } from '@switchyard/core';
import { between, brownout, createFaultModel, createMswDispatcher, decideFirst, fixed, flapping, lognormal, not, uniform, vendorFaults, type FaultRequest } from '../src/index.js';

const req: FaultRequest = { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: {}, body: { model: 'gpt-4o-mini', messages: [] } };

describe('schedules on an injected clock', () => {
  it('is down only between t1 and t2', async () => {
    const clock = new VirtualClock(0);
    const outage = createFaultModel('openai', 'unavailable', { when: between(1_000, 5_000) }, { clock });
    const statuses: (number | 'pass')[] = [];
    for (let i = 0; i < 7; i++) {
      const plan = outage.decide(req);
      statuses.push(plan?.kind === 'respond' ? plan.status : 'pass');
      await clock.advance(1_000);
    }
    expect(statuses).toEqual(['pass', 503, 503, 503, 503, 'pass', 'pass']);
    expect(outage.log.map((e) => e.at)).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000]);
    expect([outage.seen, outage.answered]).toEqual([7, 4]);
  });

  it('flaps: down for downMs at the start of every period', async () => {
    const clock = new VirtualClock(0);
    const flap = createFaultModel('anthropic', 'overloaded', { when: flapping({ periodMs: 10_000, downMs: 3_000 }) }, { clock });
    const down: boolean[] = [];
    for (let t = 0; t < 30_000; t += 1_000) {
      down.push(flap.decide(req) !== undefined);
      await clock.advance(1_000);
    }
    const period = [true, true, true, false, false, false, false, false, false, false];
    expect(down).toEqual([...period, ...period, ...period]);
  });

  it('browns out a seeded share of requests, reproducibly', () => {
    const run = (seed: number) => {
      const m = createFaultModel('gemini', 'server-error', { when: brownout(0.3) }, { random: seededRandom(seed) });
      return Array.from({ length: 2_000 }, () => m.decide(req) !== undefined);
    };
    const first = run(42);
    const share = first.filter(Boolean).length / first.length;
    expect(share).toBeGreaterThan(0.27);
    expect(share).toBeLessThan(0.33);
    expect(run(42)).toEqual(first);
    expect(run(43)).not.toEqual(first);
  });

  it('composes: a fault inactive by schedule passes to the next model', () => {
    const clock = new VirtualClock(0);
    const outage = createFaultModel('openai', 'unavailable', { when: not(between(0, 10)) }, { clock });
    const ok = createFaultModel('openai', 'ok', {}, { clock });
    expect(decideFirst([outage, ok], req)).toMatchObject({ kind: 'respond', status: 200 });
    expect([outage.seen, outage.answered, ok.answered]).toEqual([1, 0, 1]);
  });
});

describe('latency distributions', () => {
  const sample = (latency: (r: () => number) => number, n = 2_001) => {
    const random = seededRandom(7);
    return Array.from({ length: n }, () => latency(random)).sort((x, y) => x - y);
  };

  it('fixed and uniform stay in their bounds', () => {
    expect(new Set(sample(fixed(250), 10))).toEqual(new Set([250]));
    const u = sample(uniform(100, 300));
    expect(u[0]).toBeGreaterThanOrEqual(100);
    expect(u.at(-1)).toBeLessThan(300);
  });

  it('lognormal has the asked median, a long right tail, and respects its cap', () => {
    const l = sample(lognormal({ medianMs: 800, sigma: 0.6 }));
    const median = l[1_000]!;
    expect(median).toBeGreaterThan(720);
    expect(median).toBeLessThan(880);
    const p99 = l[Math.floor(l.length * 0.99)]!;
    expect(p99).toBeGreaterThan(median * 3);
    expect(sample(lognormal({ medianMs: 800, sigma: 2, maxMs: 5_000 })).at(-1)).toBeLessThanOrEqual(5_000);
  });

  it('delays the response on the fault clock (through the bridge)', async () => {
    const clock = new VirtualClock();
    const openai = vendorFaults('openai', { clock });
    const slow = openai.ok({ latency: fixed(250) });
    let arrived = false;
    const pending = request('https://api.openai.com/v1/chat/completions', { method: 'POST', body: '{"model":"m"}', dispatcher: createMswDispatcher([slow]) }).then((r) => {
      arrived = true;
      return r;
    });
    // The handler's delay is the one timer on the fault clock once the request reached it.
    await expect.poll(() => clock.pendingTimers(), { timeout: 5_000, interval: 2 }).toBe(1);
    await clock.advance(249);
    expect(clock.pendingTimers()).toBe(1);
    expect(arrived).toBe(false);
    await clock.advance(1);
    expect((await pending).statusCode).toBe(200);
  });
});
