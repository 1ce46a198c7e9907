/**
 * Issue 11 acceptance: with the primary failing (and echoing the key it was sent), the JSON
 * log of `switchyard serve`'s pino logger holds, in order, the failed-attempt lines, the
 * breaker-open line and the access lines with their fields; no key nor any 8-character piece
 * of one appears in a log line, /metrics or /status.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createServeLogger } from '@switchyard/cli';
import { metrics } from '@switchyard/plugin-metrics';
import { GATEWAY_KEY, stopAll } from './support/harness.js';
import { ALL_KEYS, keyFragments, outageGateway } from './support/outage.js';
import { sample } from './support/exposition.js';

afterEach(stopAll);

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('observability acceptance', () => {
  it('primary failing: failed attempts, then breaker open, then access lines; no key anywhere', async () => {
    let out = '';
    // The serve logger masks what it is told to, and the gateway adds every configured key to its masker.
    const logger = createServeLogger({ out: { write: (s: string) => (out += s) }, secrets: () => [], level: 'info' });
    const registry = new Registry();
    const { client, origin } = await outageGateway({ logger, plugins: [metrics({ registry })] });
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('hello from secondary');
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('hello from secondary');

    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const events = lines.map((l) => l.event);
    const failed = lines.filter((l) => l.event === 'attempt_failed');
    const access = lines.filter((l) => l.event === 'access');
    expect(failed.map((l) => [l.keyId, l.errorKind, l.status, l.decision])).toEqual([
      ['primary#0', 'payment', 402, 'next-candidate'],
      ['primary#1', 'overloaded', 503, 'next-candidate'],
    ]);
    for (const line of failed) expect(line).toMatchObject({ level: 'warn', endpoint: 'primary', upstreamModel: 'primary-model', backoffMs: 0, backoffLevel: 0, requestId: access[0].requestId });
    const breakerAt = events.indexOf('breaker_open');
    expect(events.indexOf('attempt_failed')).toBeLessThan(breakerAt);
    expect(breakerAt).toBeLessThan(events.indexOf('access'));
    expect(events.lastIndexOf('attempt_failed')).toBeLessThan(events.indexOf('access'));
    expect(lines[breakerAt]).toMatchObject({ level: 'warn', deployment: 'primary/primary-model#1', reason: expect.any(String), openMs: expect.any(Number), until: expect.any(String) });
    expect(lines.find((l) => l.event === 'key_parked')).toMatchObject({ endpoint: 'primary', keyId: 'primary#0', action: 'top up the account' });

    expect(access).toHaveLength(2);
    expect(access[0]).toMatchObject({ level: 'info', msg: 'request', outcome: 'success', status: 200, model: 'chat', stream: false, endpoint: 'secondary', upstreamModel: 'upstream-model', attempts: 3, failovers: 2, retries: 0, inputTokens: 3, outputTokens: 2, cachedTokens: 0, costUsd: 0.007 });
    expect(access[0].latencyMs).toEqual(expect.any(Number));
    expect(access[1]).toMatchObject({ outcome: 'success', attempts: 1, failovers: 0, endpoint: 'secondary' });

    const auth = { authorization: `Bearer ${GATEWAY_KEY}` };
    const scrape = await (await fetch(`${origin}/metrics`, { headers: auth })).text();
    const status = await (await fetch(`${origin}/status`, { headers: auth })).text();
    const page = await (await fetch(`${origin}/status.html`, { headers: auth })).text();
    expect(sample(scrape, 'switchyard_breaker_state', { deployment: 'primary/primary-model#1' })).toBe(2);
    expect(sample(scrape, 'switchyard_keys_parked', { endpoint: 'primary' })).toBe(1);
    expect(JSON.parse(status).models[0].deployments[0].breaker).toBe('open');
    // The vendor echoed the key: the logs carry the masked text, never the key.
    expect(out).toContain('for api key [redacted]');
    for (const text of [out, scrape, status, page]) {
      for (const key of ALL_KEYS) expect(text).not.toContain(key);
      for (const piece of keyFragments()) expect(text).not.toContain(piece);
    }
  });
});
