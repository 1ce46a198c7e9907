import { createPipeline, seededRandom, VirtualClock, type DeploymentConfig } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { router, type RouterOptionsInput } from '../src/index.js';
import { okCompletion, scriptedTransport, settle } from './support/scripted-transport.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

function setup(deployments: DeploymentConfig[], options: RouterOptionsInput, startAt: string) {
  const clock = new VirtualClock(Date.parse(startAt));
  const transport = scriptedTransport(clock, (call) => ({ body: okCompletion(String(call.body.model)) }));
  const endpoints = [...new Set(deployments.map((d) => d.endpoint))].map((name) => ({ name, provider: 'test', baseUrl: `http://${name}/v1` }));
  const pipeline = createPipeline({ endpoints, models: { chat: deployments, other: deployments }, providers: [testProvider], plugins: [router(options)], clock, random: seededRandom(9), transport });
  const firsts: string[] = [];
  pipeline.events.on('attempt:start', ({ attempt, candidate }) => attempt === 1 && firsts.push(candidate.deploymentId));
  /** The deployment tried first for one request at `at` (ISO). */
  const firstAt = async (at: string, request: { model?: string; tier?: string } = {}) => {
    await clock.advance(Date.parse(at) - clock.now());
    await settle(clock, pipeline.chat({ model: request.model ?? 'chat', messages: hi, ...(request.tier ? { switchyard: { tier: request.tier } } : {}) }));
    return firsts.at(-1);
  };
  return { pipeline, clock, firsts, firstAt };
}

const primaryAndBatch: DeploymentConfig[] = [
  { endpoint: 'realtime', model: 'gpt-4o' },
  { endpoint: 'batch', model: 'gpt-4o-batch', priority: 1 },
];
const offPeak = (extra: Record<string, unknown> = {}): RouterOptionsInput => ({ schedule: [{ name: 'off-peak', between: ['22:00', '06:00'], timeZone: 'Europe/Berlin', prefer: ['batch/gpt-4o-batch'], ...extra }] });

describe('router: time-of-day rules', () => {
  it('prefers the cheap batch deployment between 22:00 and 06:00 local time, past midnight', async () => {
    const { firstAt } = setup(primaryAndBatch, offPeak(), '2026-01-15T11:00:00Z');
    // Berlin is UTC+1 in January.
    expect(await firstAt('2026-01-15T12:00:00Z')).toBe('realtime/gpt-4o'); // 13:00
    expect(await firstAt('2026-01-15T20:59:00Z')).toBe('realtime/gpt-4o'); // 21:59
    expect(await firstAt('2026-01-15T21:00:00Z')).toBe('batch/gpt-4o-batch'); // 22:00
    expect(await firstAt('2026-01-16T02:30:00Z')).toBe('batch/gpt-4o-batch'); // 03:30
    expect(await firstAt('2026-01-16T04:59:30Z')).toBe('batch/gpt-4o-batch'); // 05:59:30
    expect(await firstAt('2026-01-16T05:00:00Z')).toBe('realtime/gpt-4o'); // 06:00
  });

  it('follows daylight-saving time and half-hour zones (Intl), not a fixed offset', async () => {
    const ny = setup(primaryAndBatch, offPeak({ timeZone: 'America/New_York' }), '2026-03-06T00:00:00Z');
    // 10:30 UTC is 05:30 EST on Saturday, 06:30 EDT on Sunday (clocks went forward that night).
    expect(await ny.firstAt('2026-03-07T10:30:00Z')).toBe('batch/gpt-4o-batch');
    expect(await ny.firstAt('2026-03-08T10:30:00Z')).toBe('realtime/gpt-4o');
    const india = setup(primaryAndBatch, offPeak({ timeZone: 'Asia/Kolkata' }), '2026-01-15T00:00:00Z');
    // UTC+5:30: 16:29 UTC is 21:59, 16:30 UTC is 22:00.
    expect(await india.firstAt('2026-01-15T16:29:00Z')).toBe('realtime/gpt-4o');
    expect(await india.firstAt('2026-01-15T16:30:00Z')).toBe('batch/gpt-4o-batch');
  });

  it('a window on given days counts the night from the day it starts', async () => {
    const { firstAt } = setup(primaryAndBatch, offPeak({ days: ['fri'] }), '2026-01-15T00:00:00Z');
    // 2026-01-16 is a Friday.
    expect(await firstAt('2026-01-15T22:00:00Z')).toBe('realtime/gpt-4o'); // Thursday night, 23:00
    expect(await firstAt('2026-01-16T22:00:00Z')).toBe('batch/gpt-4o-batch'); // Friday 23:00
    expect(await firstAt('2026-01-17T02:00:00Z')).toBe('batch/gpt-4o-batch'); // Saturday 03:00, Friday's night
    expect(await firstAt('2026-01-17T22:00:00Z')).toBe('realtime/gpt-4o'); // Saturday night
  });

  it('changes weights inside a tier while the window is open', async () => {
    const deployments: DeploymentConfig[] = [
      { endpoint: 'a', model: 'm', priority: 0, weight: 9 },
      { endpoint: 'b', model: 'm', priority: 0, weight: 1 },
    ];
    const { firstAt, firsts } = setup(deployments, { schedule: [{ name: 'night', between: ['00:00', '06:00'], weights: { 'a/m': 1, 'b/m': 9 } }] }, '2026-01-15T00:00:00Z');
    for (let i = 0; i < 400; i++) await firstAt(new Date(Date.parse('2026-01-15T01:00:00Z') + i * 1_000).toISOString());
    const night = firsts.splice(0).filter((f) => f === 'b/m').length / 400;
    for (let i = 0; i < 400; i++) await firstAt(new Date(Date.parse('2026-01-15T12:00:00Z') + i * 1_000).toISOString());
    const day = firsts.filter((f) => f === 'b/m').length / 400;
    expect(night).toBeGreaterThan(0.83);
    expect(day).toBeLessThan(0.17);
  });

  it('applies only to the models and tiers it names', async () => {
    const { firstAt } = setup(primaryAndBatch, offPeak({ models: ['chat'], tiers: ['batch'] }), '2026-01-15T22:00:00Z');
    expect(await firstAt('2026-01-15T22:00:00Z', { tier: 'batch' })).toBe('batch/gpt-4o-batch');
    expect(await firstAt('2026-01-15T22:00:00Z', { tier: 'interactive' })).toBe('realtime/gpt-4o');
    expect(await firstAt('2026-01-15T22:00:00Z')).toBe('realtime/gpt-4o');
    expect(await firstAt('2026-01-15T22:00:00Z', { model: 'other', tier: 'batch' })).toBe('realtime/gpt-4o');
  });

  it('rejects rules it could not apply, with coded errors naming the field', () => {
    const at = '2026-01-15T00:00:00Z';
    expect(() => router({ schedule: [{ name: 'x', between: ['22:00', '06:00'], timeZone: 'Mars/Olympus', prefer: ['a'] }] })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'schedule.0.timeZone' }));
    expect(() => router({ schedule: [{ name: 'x', between: ['22:00', '24:00'], prefer: ['a'] }] })).toThrow(/schedule\.0\.between\.1: expected a local time/);
    expect(() => router({ schedule: [{ name: 'x', between: ['22:00', '06:00'] }] })).toThrow(/a rule needs prefer, weights or strategy/);
    expect(() => setup(primaryAndBatch, offPeak({ prefer: ['batch/gpt-5'] }), at)).toThrow(expect.objectContaining({ path: 'schedule.0.prefer', message: expect.stringContaining('"batch/gpt-5" is neither a deployment') }));
    expect(() => setup(primaryAndBatch, offPeak({ weights: { batch: 2 } }), at)).toThrow(expect.objectContaining({ path: 'schedule.0.weights' }));
  });
});
