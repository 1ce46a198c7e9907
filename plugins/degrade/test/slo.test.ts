import { type SloChange } from '@switchyard/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStateStore, seededRandom, STAGE } from '@switchyard/core';
import { degrade, type DegradeOptionsInput } from '../src/index.js';
import { ask, rig, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const twoTiers = { chat: [{ endpoint: 'openai', model: 'gpt-4o', priority: 0 }, { endpoint: 'cheap', model: 'gpt-4o-mini', priority: 1 }], mini: [{ endpoint: 'cheap', model: 'gpt-4o-mini' }] };

async function guarded(options: DegradeOptionsInput, models?: typeof twoTiers) {
  current = await rig(() => [degrade(options)], { random: seededRandom(7), models });
  const changes: SloChange[] = [];
  current.pipeline.events.on('slo:change', (c) => changes.push(c));
  return { ...current, changes };
}

/** Sends `n` requests one after the other, `gapMs` apart on the virtual clock. */
async function traffic(r: Rig, n: number, gapMs = 1_000) {
  const answers = [];
  for (let i = 0; i < n; i++) {
    answers.push(await r.pipeline.chat(ask(`q${i}`)).catch((e) => e));
    await r.clock.advance(gapMs);
  }
  return answers;
}

describe('an SLO on a model that switches on a degrade plan', () => {
  const options: DegradeOptionsInput = {
    models: { chat: [{ type: 'canned', text: 'normal fallback' }] },
    slo: [{ name: 'chat-availability', model: 'chat', target: 0.9, windowMs: 60_000, minSamples: 10, recoverSamples: 5, minBreachMs: 30_000, probeShare: 0.25, then: { degrade: [{ type: 'canned', text: 'We are having trouble; please try again soon.' }] } }],
  };

  it('breaches once the window misses the target, then serves its plan at once except to probes', async () => {
    const r = await guarded(options);
    r.primary.health = 'down';
    await traffic(r, 9);
    expect(r.changes).toEqual([]);
    await traffic(r, 1);
    expect(r.changes).toEqual([expect.objectContaining({ name: 'chat-availability', state: 'breached', scope: 'model:chat', successRate: 0, samples: 10, target: 0.9, recoverAt: 0.95, actions: ['degrade:canned'] })]);

    const sentBefore = r.primary.server.requests.length;
    const answers = await traffic(r, 40);
    const slo = answers.filter((a) => a.choices?.[0].message.content.startsWith('We are having trouble'));
    const probes = answers.filter((a) => a.choices?.[0].message.content === 'normal fallback');
    expect(slo.length + probes.length).toBe(40);
    // Only the probes reach the vendor; the rest never wait for a failing primary.
    expect(probes.length).toBeGreaterThan(3);
    expect(probes.length).toBeLessThan(20);
    expect(r.primary.server.requests.length - sentBefore).toBe(probes.length);
    expect(slo[0].switchyard).toMatchObject({ degraded: 'canned', attempts: 0 });
  });

  it('recovers only after the probes reach recoverAt and minBreachMs passed (hysteresis), then routes normally', async () => {
    const r = await guarded(options);
    r.primary.health = 'down';
    await traffic(r, 10);
    expect(r.changes.map((c) => c.state)).toEqual(['breached']);
    r.primary.health = 'up';
    // Good probes 100 ms apart: the five needed arrive long before minBreachMs (30 s) has passed.
    await traffic(r, 60, 100);
    expect(r.changes.map((c) => c.state)).toEqual(['breached']);
    await traffic(r, 60, 1_000);
    expect(r.changes.map((c) => c.state)).toEqual(['breached', 'ok']);
    expect(r.changes[1]).toMatchObject({ successRate: 1, samples: 5 });
    const after = await traffic(r, 5);
    expect(after.every((a) => a.choices[0].message.content === 'primary says hi')).toBe(true);
  });

  it('probes between the target and recoverAt do not recover it', async () => {
    const r = await guarded({ ...options, slo: [{ ...options.slo![0], recoverSamples: 4, recoverAt: 1 }] });
    r.primary.health = 'down';
    await traffic(r, 10);
    // Every third vendor call fails: 2/3 of the probes succeed, above nothing the objective accepts.
    let calls = 0;
    r.pipeline.hooks.call.for('test').tap({ name: 'test-flaky', stage: STAGE.FIRST }, () => {
      r.primary.health = ++calls % 3 === 0 ? 'down' : 'up';
      return undefined;
    });
    await traffic(r, 200, 1_000);
    expect(calls).toBeGreaterThan(8);
    expect(r.changes.map((c) => c.state)).toEqual(['breached']);
  });

  it('keeps its breach across a pipeline rebuilt on the same store (a reload), and starts afresh when redefined', async () => {
    const store = new MemoryStateStore();
    const first = await rig(() => [degrade(options)], { random: seededRandom(1), store });
    first.primary.health = 'down';
    await traffic(first, 10);
    await first.close();

    current = await rig(() => [degrade(options)], { random: seededRandom(1), store });
    const answers = await traffic(current, 4);
    expect(answers.filter((a) => a.choices[0].message.content.startsWith('We are having trouble')).length).toBeGreaterThanOrEqual(3);
    await current.close();

    const redefined = { ...options, slo: [{ ...options.slo![0], target: 0.85 }] };
    current = await rig(() => [degrade(redefined)], { random: seededRandom(1), store });
    expect((await traffic(current, 4)).map((a) => a.choices[0].message.content)).toEqual(Array(4).fill('primary says hi'));
  });
});

describe('an SLO on a deployment that changes routing', () => {
  it('excludes the deployment while breached: requests go to the backup without trying it', async () => {
    const r = await guarded({ slo: [{ name: 'primary-ok', deployment: 'openai/gpt-4o', target: 0.8, windowMs: 60_000, minSamples: 5, probeShare: 0.1, recoverSamples: 3, minBreachMs: 0, then: { exclude: ['openai/gpt-4o'] } }] }, twoTiers);
    r.primary.health = 'down';
    await traffic(r, 5);
    expect(r.changes.map((c) => [c.state, c.scope, c.actions])).toEqual([['breached', 'deployment:openai/gpt-4o', ['exclude:openai/gpt-4o']]]);
    const tried = r.primary.server.requests.length;
    const answers = await traffic(r, 30);
    expect(answers.every((a) => a.choices[0].message.content === 'cheap says hi')).toBe(true);
    const probes = r.primary.server.requests.length - tried;
    expect(probes).toBeGreaterThan(0);
    expect(probes).toBeLessThan(10);
    // A backup answered: the caller can tell.
    expect(answers[0].switchyard.fallback).toBe('cheap/gpt-4o-mini');
    r.primary.health = 'up';
    await traffic(r, 80);
    expect(r.changes.map((c) => c.state)).toEqual(['breached', 'ok']);
    expect((await r.pipeline.chat(ask())).switchyard.deployment).toBe('openai/gpt-4o');
  });

  it('fromPriority moves traffic to the backup tiers; an exclusion that leaves nothing keeps the list', async () => {
    const r = await guarded({ slo: [
      { name: 'tier', deployment: 'openai/gpt-4o', target: 0.8, minSamples: 5, probeShare: 0.01, then: { fromPriority: 1 } },
      { name: 'everything', deployment: 'cheap/gpt-4o-mini', target: 0.8, minSamples: 5, probeShare: 0.01, then: { exclude: ['cheap'] } },
    ] }, twoTiers);
    r.primary.health = 'down';
    await traffic(r, 5);
    expect(r.changes.map((c) => c.name)).toEqual(['tier']);
    const before = r.primary.server.requests.length;
    await traffic(r, 10);
    expect(r.primary.server.requests.length).toBe(before);
    r.cheap.health = 'down';
    // Mini only has cheap: excluding it would leave nothing, so it is still tried.
    await traffic(r, 5);
    const cheapCalls = r.cheap.server.requests.length;
    await r.pipeline.chat({ ...ask(), model: 'mini' }).catch(() => undefined);
    expect(r.cheap.server.requests.length).toBe(cheapCalls + 1);
  });

  it('a tier action gives the affected requests the tier (its degrade plan, router strategy)', async () => {
    const r = await guarded({ tiers: { economy: [{ type: 'canned', text: 'economy plan' }] }, models: { chat: [{ type: 'canned', text: 'chat plan' }] }, slo: [{ name: 'x', model: 'chat', target: 0.5, minSamples: 4, probeShare: 0.01, then: { tier: 'economy' } }] });
    r.primary.health = 'down';
    const before = await traffic(r, 4);
    expect(before.map((a) => a.choices[0].message.content)).toEqual(Array(4).fill('chat plan'));
    const after = await traffic(r, 3);
    expect(after.map((a) => a.choices[0].message.content)).toEqual(Array(3).fill('economy plan'));
  });
});

describe('SLO options', () => {
  it.each<[object, string]>([
    [{ name: 'a', target: 0.9, then: { tier: 'x' } }, 'slo.0.model'],
    [{ name: 'a', model: 'chat', deployment: 'openai/gpt-4o', target: 0.9, then: { tier: 'x' } }, 'slo.0.model'],
    [{ name: 'a', model: 'chat', target: 0.9, then: {} }, 'slo.0.then'],
    [{ name: 'a', model: 'chat', target: 1.5, then: { tier: 'x' } }, 'slo.0.target'],
    [{ name: 'a', model: 'chat', target: 0.9, recoverAt: 0.8, then: { tier: 'x' } }, 'slo.0.recoverAt'],
  ])('%j is refused, naming %s', (slo, path) => {
    const err = (() => {
      try {
        degrade({ slo: [slo] } as never);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS' });
    expect(err?.message).toContain(path);
  });

  it.each<[object, string, RegExp]>([
    [{ name: 'a', model: 'chatt', target: 0.9, then: { tier: 'x' } }, 'slo[0].model', /unknown model "chatt"/],
    [{ name: 'a', deployment: 'openai/gpt-5', target: 0.9, then: { tier: 'x' } }, 'slo[0].deployment', /unknown deployment/],
    [{ name: 'a', model: 'chat', target: 0.9, then: { exclude: ['nowhere'] } }, 'slo[0].then.exclude[0]', /neither a deployment nor an endpoint/],
    [{ name: 'a', model: 'chat', target: 0.9, then: { degrade: [{ type: 'model', model: 'gpt-5' }] } }, 'slo[0].then.degrade[0].model', /neither a logical model/],
  ])('%j is a config error naming %s', async (slo, path, message) => {
    const err = await rig(() => [degrade({ slo: [slo] } as never)]).catch((e) => e);
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path });
    expect(err.message).toMatch(message);
  });
});
