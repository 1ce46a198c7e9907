/**
 * /status as an operator reads it (issue 38): per model the share of requests its clients got
 * an answer for and a verdict; per deployment the error rate in requests (a retry on the other
 * key that answers is no failed request), a clear state, and how old the evidence behind its
 * badges is once no traffic reaches it. Virtual time.
 */
import { createPipeline, VirtualClock } from '@switchyard/core';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { defaultPrice, quota } from '@switchyard/plugin-quota';
import { openaiProvider } from '@switchyard/provider-openai';
import { afterEach, describe, expect, it } from 'vitest';
import { answers, raw, startGateway, stopAll, vendor, type Handler } from './support/harness.js';

afterEach(stopAll);

const MINUTE = 60_000;
const REVOKED = 'sk-revoked-0000000000000001';
const GOOD = 'sk-good-00000000000000000002';
const failing: Handler = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: 'service unavailable', type: 'server_error' } }));
};

describe('GET /status verdicts', () => {
  it('gives each model its client-visible success rate and state, counts deployment errors in requests, and ages badges nothing confirms', async () => {
    // `split` answers with its second key only; `dead` never answers.
    const ok = answers(['hello']);
    const split = await vendor((req, res, body) => (String(req.headers.authorization).endsWith(REVOKED) ? failing(req, res, body) : ok(req, res, body)));
    const dead = await vendor(failing);
    const clock = new VirtualClock(Date.UTC(2026, 11, 5, 9));
    const pipeline = createPipeline({
      clock,
      endpoints: [
        { name: 'split', provider: 'openai', baseUrl: split.url, apiKeys: [REVOKED, GOOD] },
        { name: 'dead', provider: 'openai', baseUrl: dead.url, apiKey: GOOD },
      ],
      models: { chat: [{ endpoint: 'split', model: 'gpt-4o-mini' }], broken: [{ endpoint: 'dead', model: 'dead-model' }] },
      providers: [openaiProvider],
      plugins: [circuitBreaker({ consecutiveFailures: 3, baseOpenMs: 30_000, maxOpenMs: 30_000 }), quota()],
    });
    const gw = await startGateway(pipeline, { clock });
    const ask = (model: string) => raw(gw.origin, '/v1/chat/completions', { body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) });
    const status = async () => (await raw(gw.origin, '/status', { method: 'GET' })).json;

    for (let i = 0; i < 4; i++) expect((await ask('chat')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await ask('broken')).status).toBe(503);

    const report = await status();
    const [chat, broken] = report.models;
    // Every chat request answered (three of them after a failed first key): no failed request.
    expect(chat).toMatchObject({ name: 'chat', state: 'ok', requests: 4, errors: 0, successRate: 1, errorRate: 0, verdict: 'ok: 4 of 4 requests answered in the last 5 min' });
    expect(chat.deployments[0]).toMatchObject({ id: 'split/gpt-4o-mini', state: 'serving', requests: 4, attempts: 7, errorRate: 0, stale: false, badgeAgeMs: 0 });
    expect(chat.deployments[0].attemptErrorRate).toBeCloseTo(3 / 7, 6);
    // Spend at the ledger's price: the deployment names none, the ledger's table prices gpt-4o-mini (4 answers of 3 + 2 tokens).
    const price = defaultPrice('gpt-4o-mini')!;
    expect(chat.deployments[0].spendTodayUsd).toBeCloseTo((4 * (3 * price.input + 2 * price.output)) / 1e6, 6);
    expect(report.spendTodayUsd).toBeCloseTo(chat.deployments[0].spendTodayUsd, 6);
    // A model failing every request is no healthy one: failing, its deployment down once its breaker opened.
    expect(broken).toMatchObject({ name: 'broken', state: 'failing', requests: 4, errors: 4, successRate: 0, errorRate: 1, verdict: 'failing: 0 of 4 requests answered in the last 5 min (dead/dead-model down)' });
    expect(broken.deployments[0]).toMatchObject({ id: 'dead/dead-model', state: 'down', breaker: 'open', healthy: false, requests: 3, attempts: 3, errorRate: 1, stale: false });

    // Nothing reaches either for six minutes: idle models, badges marked stale with their age.
    await clock.advance(6 * MINUTE);
    const later = await status();
    expect(later.models.map((m: { state: string; successRate: number | null }) => [m.state, m.successRate])).toEqual([
      ['idle', null],
      ['idle', null],
    ]);
    const deadLater = later.models[1].deployments[0];
    expect(deadLater).toMatchObject({ breaker: 'open', stale: true, errorRate: null, badgeAgeMs: 6 * MINUTE, badgeAsOf: new Date(Date.UTC(2026, 11, 5, 9)).toISOString() });
    expect(later.models[0].deployments[0]).toMatchObject({ state: 'idle', stale: true, badgeAgeMs: 6 * MINUTE });

    // The page says it in words: the verdict, the stale badge's age, times as "x min ago".
    const html = (await raw(gw.origin, '/status.html', { method: 'GET' })).text;
    expect(html).toContain('"verdict":"idle: no requests in the last 5 min"');
    expect(html).toContain("'as of ', d.badgeAsOf");
  });
});
