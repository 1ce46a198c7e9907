import { health } from '@switchyard/plugin-health';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_KEY, stopAll } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';
import { keyFragments, outageGateway } from './support/outage.js';

afterEach(stopAll);

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('GET /status', () => {
  it('reports breaker, health, latency, errors, keys and spend per deployment, protected by the gateway key, never a key', async () => {
    const logger = recordingLogger();
    const { client, origin } = await outageGateway({ logger });
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('hello from secondary');
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('hello from secondary');

    expect((await fetch(`${origin}/status`)).status).toBe(401);
    const unauthorizedPage = await fetch(`${origin}/status.html`);
    expect(unauthorizedPage.status).toBe(401);
    expect(unauthorizedPage.headers.get('www-authenticate')).toMatch(/^Basic realm="switchyard"/);

    const res = await fetch(`${origin}/status`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const text = await res.text();
    const report = JSON.parse(text);
    expect(report.startedAt).toMatch(/^\d{4}-/);
    expect(report.models).toHaveLength(1);
    const [primary, secondary] = report.models[0].deployments;
    expect(report.models[0].name).toBe('chat');
    // One request tried the primary (on both keys: two attempts) and got no answer there.
    expect(primary).toMatchObject({ id: 'primary/primary-model', endpoint: 'primary', upstreamModel: 'primary-model', breaker: 'open', healthy: false, requests: 1, attempts: 2, errorRate: 1, attemptErrorRate: 1, healthScore: null, errorRateEwma: null });
    expect(primary.breakerUntil).toMatch(/^\d{4}-/);
    expect(primary.lastError).toMatchObject({ kind: 'overloaded', status: 503 });
    expect(primary.lastError.message).toContain('[redacted]');
    expect(primary.keys).toEqual([
      { id: 'primary#0', state: 'parked', until: expect.any(String), reason: expect.stringContaining('out of balance'), breaker: 'closed' },
      { id: 'primary#1', state: 'active', breaker: 'open' },
    ]);
    // Every request answered, one deployment down: degraded.
    expect(report.models[0]).toMatchObject({ state: 'degraded', requests: 2, errors: 0, successRate: 1, verdict: 'degraded: 2 of 2 requests answered in the last 5 min (primary/primary-model down)' });
    expect(secondary).toMatchObject({ id: 'secondary/secondary-model', state: 'serving', breaker: 'closed', healthy: true, requests: 2, attempts: 2, errorRate: 0, keys: [{ id: 'secondary#0', state: 'active', breaker: 'closed' }] });
    expect(secondary.p50Ms).toEqual(expect.any(Number));
    expect(secondary.p95Ms).toBeGreaterThanOrEqual(secondary.p50Ms);
    expect(secondary.series).toHaveLength(15);
    expect(secondary.series.at(-1)).toMatchObject({ requests: 2, errorRate: 0 });
    // Two answers of 3 input + 2 output tokens at $1000 / $2000 per million.
    expect(secondary.spendTodayUsd).toBeCloseTo((2 * (3 * 1000 + 2 * 2000)) / 1e6, 6);
    expect(report.spendTodayUsd).toBeCloseTo(secondary.spendTodayUsd, 6);
    expect(report.budgets).toEqual([]);

    // The same over Basic auth (what a browser sends), and the page with Accept: text/html.
    const basic = `Basic ${Buffer.from(`ops:${GATEWAY_KEY}`).toString('base64')}`;
    const page = await fetch(`${origin}/status`, { headers: { authorization: basic, accept: 'text/html,application/xhtml+xml' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<script type="application/json" id="initial">');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=/);

    // No key, nor any 8-character piece of one, in the status answers, the logs or /metrics.
    const metrics = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
    const logs = logger.text();
    expect(logs).toContain('key_parked');
    for (const piece of keyFragments()) {
      expect(text).not.toContain(piece);
      expect(html).not.toContain(piece);
      expect(logs).not.toContain(piece);
      expect(metrics).not.toContain(piece);
    }
  });

  it('shows the health plugin\'s EWMA error rate per deployment, on the page too', async () => {
    const { client, origin } = await outageGateway({ plugins: [health()] });
    await client.chat.completions.create(ask);
    await client.chat.completions.create(ask);
    const auth = { authorization: `Bearer ${GATEWAY_KEY}` };
    const report = await (await fetch(`${origin}/status`, { headers: auth })).json();
    const [primary, secondary] = report.models[0].deployments;
    // The primary's one 503 (the 402 is a key failure: health does not count it); two successes on the secondary.
    // (Real time: a few ms of decay since.)
    expect(primary.errorRateEwma).toBeGreaterThan(0.9);
    expect(secondary.errorRateEwma).toBe(0);
    const html = await (await fetch(`${origin}/status.html`, { headers: auth })).text();
    expect(html).toContain('"errorRateEwma":');
    expect(html).toContain("' · EWMA ' + pct(d.errorRateEwma)");
  });
});
