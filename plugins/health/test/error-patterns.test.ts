import { type ErrorPattern } from '@switchyard/contracts';
import { createPipeline, seededRandom, VirtualClock } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { okCompletion, scriptedTransport, settle } from '../../router/test/support/scripted-transport.js';
import { getHealth, health, type HealthOptionsInput } from '../src/index.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

/** One deployment whose answers the test scripts: a status per call, `hang` to time out. */
function setup(options: HealthOptionsInput, script: () => number | 'hang') {
  const clock = new VirtualClock();
  const transport = scriptedTransport(clock, (call) => {
    const next = script();
    if (next === 'hang') return { delayMs: 60_000, body: okCompletion('m') };
    return { status: next, delayMs: 50, body: next >= 300 ? { error: { message: `failed with ${next}` } } : okCompletion(String(call.body.model)) };
  });
  const pipeline = createPipeline({
    endpoints: [{ name: 'up', provider: 'test', baseUrl: 'http://up/v1' }],
    models: { chat: [{ endpoint: 'up', model: 'm', timeouts: { attemptMs: 1_000 } }] },
    providers: [testProvider],
    plugins: [health({ minSamples: 1000, ...options })],
    clock,
    random: seededRandom(4),
    transport,
  });
  const events: ErrorPattern[] = [];
  pipeline.events.on('health:pattern', (e) => events.push(e));
  const chat = () => settle(clock, pipeline.chat({ model: 'chat', messages: hi }).catch((e: unknown) => e));
  return { pipeline, clock, events, chat, monitor: getHealth(pipeline) };
}

const list = (...items: (number | 'hang')[]) => () => items.shift() ?? 200;

describe('health: error patterns as signals', () => {
  it('reports the same error N times in a row, and its end when the deployment answers again', async () => {
    const { events, chat, monitor } = setup({}, list(529, 529, 529, 529, 529, 529, 200));
    for (let i = 0; i < 4; i++) await chat();
    expect(events).toEqual([]);
    await chat();
    expect(events).toEqual([
      expect.objectContaining({ deployment: 'up/m', pattern: 'same-error', active: true, kind: 'overloaded', code: 'SWITCHYARD_ERR_OVERLOADED', status: 529, count: 5, message: 'up/m keeps failing with the same error, 5 times in a row: overloaded SWITCHYARD_ERR_OVERLOADED (529)' }),
    ]);
    // Still going: no second start.
    await chat();
    expect(events).toHaveLength(1);
    expect(monitor.snapshot()['up/m'].patterns).toEqual([expect.objectContaining({ pattern: 'same-error', status: 529 })]);
    await chat();
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ pattern: 'same-error', active: false, kind: 'overloaded', since: events[0].since });
    expect(monitor.snapshot()['up/m'].patterns).toEqual([]);
  });

  it('a different error breaks the streak; the same one often enough within the window is a pattern too', async () => {
    const { events, chat } = setup({ patterns: { sameError: { inARow: 10, inWindow: 4, windowMs: 300_000 } } }, list(503, 500, 503, 500, 503, 500, 503));
    for (let i = 0; i < 6; i++) await chat();
    expect(events).toEqual([]);
    await chat();
    expect(events).toEqual([expect.objectContaining({ pattern: 'same-error', status: 503, count: 4, message: expect.stringContaining('4 times within 300 s') })]);
  });

  it('lets the window end a pattern once its errors are old', async () => {
    const { events, chat, clock } = setup({ patterns: { sameError: { inARow: 50, inWindow: 3, windowMs: 60_000 } } }, list(502, 502, 502, 404, 404));
    for (let i = 0; i < 3; i++) await chat();
    expect(events.map((e) => e.active)).toEqual([true]);
    await clock.advance(61_000);
    await chat();
    expect(events.map((e) => `${e.active}:${e.status}`)).toEqual(['true:502', 'false:502']);
  });

  it('reports a deployment that keeps timing out: in a row, or by share of the window', async () => {
    const inARow = setup({}, list('hang', 'hang', 'hang'));
    for (let i = 0; i < 3; i++) await inARow.chat();
    expect(inARow.events).toEqual([expect.objectContaining({ pattern: 'timeouts', active: true, kind: 'timeout', count: 3, message: 'up/m is timing out: 3 timeouts in a row (last: timeout)' })]);

    const byShare = setup({ patterns: { sameError: false, timeouts: { inARow: 10, share: 0.7, minAttempts: 4, windowMs: 60_000 } } }, list('hang', 200, 'hang', 'hang', 200, 200, 200));
    for (let i = 0; i < 4; i++) await byShare.chat();
    expect(byShare.events).toEqual([expect.objectContaining({ pattern: 'timeouts', active: true, message: 'up/m is timing out: 3 of 4 attempts timed out within 60 s (last: timeout)' })]);
    // 3 of 5, then 3 of 6: below the share, and no streak: it ends.
    await byShare.chat();
    expect(byShare.events).toHaveLength(2);
    expect(byShare.events[1]).toMatchObject({ pattern: 'timeouts', active: false });
  });

  it('counts cancelled attempts nowhere, and can be turned off', async () => {
    const off = setup({ patterns: { sameError: false, timeouts: false } }, () => 529);
    for (let i = 0; i < 10; i++) await off.chat();
    expect(off.events).toEqual([]);

    const { pipeline, clock, events, chat } = setup({}, list(529, 529, 529, 'hang', 529, 529));
    for (let i = 0; i < 3; i++) await chat();
    const controller = new AbortController();
    const cancelled = pipeline.chat({ model: 'chat', messages: hi }, { signal: controller.signal }).catch((e: unknown) => e);
    await clock.advance(10);
    controller.abort();
    expect(await settle(clock, cancelled)).toMatchObject({ kind: 'cancelled' });
    await chat();
    expect(events).toEqual([]);
    await chat();
    expect(events).toEqual([expect.objectContaining({ pattern: 'same-error', count: 5 })]);
  });
});
