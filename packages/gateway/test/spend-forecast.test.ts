/**
 * Spend forecasts through the gateway on virtual time: the day's and the month's projection on
 * /switchyard/usage?forecast= and /status, and a budget-forecast alert (to a real webhook
 * receiver) hours before a daily budget runs out, resolved when the next day starts.
 */
import { VirtualClock } from '@switchyard/core';
import { alerts, getAlerts } from '@switchyard/plugin-alerts';
import { quota } from '@switchyard/plugin-quota';
import { afterEach, describe, expect, it } from 'vitest';
import { completion, pipelineFor, raw, startGateway, startLoopback, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

const HOUR = 3_600_000;
const START = Date.UTC(2026, 11, 1); // 2026-12-01T00:00Z

describe('spend forecast', () => {
  it('projects the day and the month at their pace so far, and alerts before a daily budget runs out', async () => {
    // 1000 prompt + 500 completion tokens at $50 / $100 per million: $0.10 an answer.
    const upstream = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...(completion('ok') as object), usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } }));
    });
    const receiver = await startLoopback((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const clock = new VirtualClock(START);
    const pipeline = pipelineFor({
      vendors: { v: upstream },
      extra: {
        clock,
        models: { chat: [{ endpoint: 'v', model: 'v-model', price: { input: 50, output: 100 } }] },
        plugins: [
          quota({ ledger: {}, budgets: [{ model: 'chat', spendPerDay: 1 }], forecast: { everyMs: 60_000, minElapsedShare: 0.05 } }),
          alerts({ channels: [{ type: 'webhook', url: `${receiver.url}/alerts` }] }),
        ],
      },
    });
    const gw = await startGateway(pipeline);
    const get = async (path: string) => (await raw(gw.origin, path, { method: 'GET' })).json;
    const notices = () => receiver.requests.map((r) => JSON.parse(r.body)).filter((n) => n.alert === 'budget-forecast');
    // A minute at a time, letting each notice reach the receiver (real I/O) before time moves on.
    const advance = async (ms: number) => {
      for (let left = ms; left > 0; left -= 60_000) {
        await clock.advance(Math.min(60_000, left));
        await getAlerts(pipeline)!.settled();
      }
    };

    await advance(5 * HOUR);
    for (let i = 0; i < 3; i++) expect((await gw.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content).toBe('ok');
    await advance(HOUR); // 06:00: $0.30 in 6 hours, $0.05 an hour

    const usage = await get('/switchyard/usage?forecast=day');
    expect(usage.total.costUsd).toBeCloseTo(0.3, 10);
    expect(usage.forecast).toEqual({
      period: 'day',
      from: '2026-12-01',
      until: '2026-12-01',
      spentUsd: 0.3,
      projectedUsd: 1.2,
      ratePerHourUsd: 0.05,
      budgets: [{ scope: 'model:chat', limit: 'spendPerDay', maxUsd: 1, spentUsd: 0.3, projectedUsd: 1.2, exhaustsAt: '2026-12-01T20:00:00.000Z' }],
    });
    const month = (await get('/switchyard/usage?forecast=month')).forecast;
    expect(month).toMatchObject({ period: 'month', from: '2026-12-01', until: '2026-12-31', spentUsd: 0.3, ratePerHourUsd: 0.05, budgets: [] });
    expect(month.projectedUsd).toBeCloseTo(0.3 + 0.05 * (31 * 24 - 6), 6);
    expect((await raw(gw.origin, '/switchyard/usage?forecast=year', { method: 'GET' })).json.error).toMatchObject({ code: 'invalid_usage_query', message: 'forecast must be day or month, got "year"' });

    const status = await get('/status');
    expect(status.forecast.day).toEqual(usage.forecast);
    expect(status.forecast.month.projectedUsd).toBe(month.projectedUsd);

    // The watch saw it first at 05:01, fourteen hours and more before the budget runs out.
    await getAlerts(pipeline)!.settled();
    expect(notices()).toHaveLength(1);
    expect(notices()[0]).toMatchObject({ state: 'firing', severity: 'warning', details: { scope: 'model:chat', limit: 'spendPerDay', maxUsd: 1 } });
    expect(Date.parse(notices()[0].details.exhaustsAt)).toBeGreaterThan(START + 15 * HOUR);
    expect(notices()[0].message).toContain('will run out at');

    // A new day: its first look is too early to trust, and the last day's incident is resolved.
    await advance(18 * HOUR + 60_000);
    await getAlerts(pipeline)!.settled();
    expect(notices().map((n) => n.state)).toEqual(['firing', 'resolved']);
    expect((await get('/status')).forecast.day).toMatchObject({ from: '2026-12-02', spentUsd: 0, projectedUsd: 0, budgets: [{ spentUsd: 0, exhaustsAt: null }] });
  });
});
