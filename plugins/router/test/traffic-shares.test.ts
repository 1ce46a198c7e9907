import { createPipeline, seededRandom, VirtualClock, type DeploymentConfig, type SwitchyardEvents } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { router, type RouterOptionsInput } from '../src/index.js';
import { okCompletion, scriptedTransport, settle } from './support/scripted-transport.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

const split: DeploymentConfig[] = [
  { endpoint: 'a', model: 'm', priority: 0, weight: 80 },
  { endpoint: 'b', model: 'm', priority: 0, weight: 15 },
  { endpoint: 'c', model: 'm', priority: 0, weight: 5 },
];
const target = { shares: { 'a/m': 0.8, 'b/m': 0.15, 'c/m': 0.05 }, windowMs: 60_000, tolerance: 0.05, minRequests: 100 };

function setup(options: RouterOptionsInput) {
  const clock = new VirtualClock();
  const down = new Set<string>();
  const transport = scriptedTransport(clock, (call) => (down.has(call.host) ? { status: 503, body: { error: { message: 'down' } } } : { body: okCompletion(String(call.body.model)) }));
  const endpoints = ['a', 'b', 'c'].map((name) => ({ name, provider: 'test', baseUrl: `http://${name}/v1` }));
  const pipeline = createPipeline({ endpoints, models: { chat: split }, providers: [testProvider], plugins: [router(options)], clock, random: seededRandom(11), transport });
  const events: SwitchyardEvents['traffic:drift'][0][] = [];
  pipeline.events.on('traffic:drift', (e) => events.push(e));
  /** One request every 100 ms for `ms`. */
  const traffic = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) {
      await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
      await clock.advance(100);
    }
  };
  return { pipeline, clock, down, events, traffic };
}

describe('router: traffic shares against a declared target', () => {
  it('says nothing while the split holds, reports a drift with the shares, and its end', async () => {
    const { down, events, traffic } = setup({ trafficTargets: { chat: target } });
    await traffic(60_000);
    expect(events).toEqual([]);
    // The primary fails: its requests are answered by the other two.
    down.add('a');
    await traffic(10_000);
    expect(events).toHaveLength(1);
    const drift = events[0];
    expect(drift).toMatchObject({ model: 'chat', drifting: true, windowMs: 60_000 });
    expect(drift.requests).toBeGreaterThanOrEqual(100);
    expect(drift.shares['a/m'].target).toBe(0.8);
    expect(drift.shares['a/m'].observed).toBeLessThan(0.75);
    expect(drift.shares['b/m'].observed + drift.shares['c/m'].observed).toBeGreaterThan(0.25);
    await traffic(20_000);
    expect(events).toHaveLength(1);
    // Back: once the outage has left the window, the shares are on target again.
    down.delete('a');
    await traffic(70_000);
    expect(events.map((e) => e.drifting)).toEqual([true, false]);
    expect(Math.abs(events[1].shares['a/m'].observed - 0.8)).toBeLessThanOrEqual(0.05);
  });

  it('judges nothing below minRequests, and counts a deployment outside the target as a drift', async () => {
    const { down, events, traffic } = setup({ trafficTargets: { chat: { ...target, shares: { 'a/m': 0.95, 'b/m': 0.05 }, minRequests: 1000 } } });
    down.add('a');
    await traffic(30_000);
    expect(events).toEqual([]);
    const strict = setup({ trafficTargets: { chat: { ...target, shares: { 'a/m': 0.85, 'b/m': 0.15 }, tolerance: 0.04 } } });
    await strict.traffic(20_000);
    // c/m serves ~5 % with a target of 0 — past the 4-point tolerance.
    expect(strict.events[0]?.shares['c/m']).toMatchObject({ target: 0 });
    expect(strict.events[0]?.drifting).toBe(true);
  });

  it('rejects targets it could not watch, with coded errors naming the field', () => {
    const make = (trafficTargets: RouterOptionsInput['trafficTargets']) => () => setup({ trafficTargets });
    expect(() => router({ trafficTargets: { chat: { shares: { 'a/m': 0.8, 'b/m': 0.1 } } } })).toThrow(/trafficTargets\.chat\.shares: shares must add up to 1/);
    expect(make({ nope: { shares: { 'a/m': 1 } } })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'trafficTargets.nope' }));
    expect(make({ chat: { shares: { 'a/m': 0.5, 'z/m': 0.5 } } })).toThrow(expect.objectContaining({ path: 'trafficTargets.chat.shares.z/m' }));
  });
});
