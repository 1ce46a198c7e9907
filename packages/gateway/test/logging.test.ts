import { afterEach, describe, expect, it } from 'vitest';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { retry } from '@switchyard/plugin-retry';
import { health } from '@switchyard/plugin-health';
import { quota } from '@switchyard/plugin-quota';
import { createPipeline, type SwitchyardEvents } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { answers, GATEWAY_KEY, pipelineFor, raw, startGateway, stopAll, vendor, VENDOR_KEY, type Handler } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

afterEach(stopAll);

/** A vendor that fails and echoes the caller's key (and a piece of it) in its error text, as some do. */
const echoesKey: Handler = (req, res) => {
  const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  res.writeHead(503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `backend overloaded for key ${key} (prefix ${key.slice(3, 15)})`, type: 'server_error', code: null } }));
};

const FRAGMENT = VENDOR_KEY.slice(3, 15);

describe('gateway logs', () => {
  it('logs failed attempts with their decision, the breaker opening and one access line per request, never a key', async () => {
    const primary = await vendor(echoesKey);
    const secondary = await vendor(answers(['fine']));
    const logger = recordingLogger();
    const plugins = [retry({ maxAttemptsPerCandidate: 2, backoff: { jitter: 'full', probeMinMs: 5, probeMaxMs: 10, baseMs: 20, capMs: 50 } }), circuitBreaker({ consecutiveFailures: 2, baseOpenMs: 60_000 })];
    const { client } = await startGateway(pipelineFor({ vendors: { primary, secondary }, extra: { plugins } }), { logger });

    const first = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], switchyard: { tier: 'gold' } } as never);
    expect(first.choices[0].message.content).toBe('fine');
    await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'again' }] });

    const events = logger.lines.map((l) => l.event);
    const failed = logger.lines.filter((l) => l.event === 'attempt_failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ level: 'warn', endpoint: 'primary', upstreamModel: 'primary-model', keyId: 'primary#0', errorKind: 'overloaded', status: 503, decision: 'retry-same', backoffLevel: 1 });
    expect(failed[0].level).toBe('warn');
    expect(failed[0].backoffMs).toBeGreaterThanOrEqual(5);
    expect(failed[1]).toMatchObject({ decision: 'next-candidate', backoffMs: 0 });
    const open = logger.lines.find((l) => l.event === 'breaker_open')!;
    expect(open).toMatchObject({ deployment: 'primary/primary-model', level: 'warn' });
    expect(open.reason).toEqual(expect.any(String));
    expect(open.openMs).toBeGreaterThan(0);
    // Order: failure, breaker open, the failure that made the request move on, then the access line.
    expect(events.indexOf('attempt_failed')).toBeLessThan(events.indexOf('breaker_open'));
    expect(events.indexOf('breaker_open')).toBeLessThan(events.indexOf('access'));
    expect(events.lastIndexOf('attempt_failed')).toBeLessThan(events.indexOf('access'));

    const access = logger.lines.filter((l) => l.event === 'access');
    expect(access).toHaveLength(2);
    expect(access[0]).toMatchObject({
      level: 'info',
      route: '/v1/chat/completions',
      model: 'chat',
      tier: 'gold',
      stream: false,
      outcome: 'success',
      status: 200,
      endpoint: 'secondary',
      upstreamModel: 'upstream-model',
      attempts: 3,
      retries: 1,
      failovers: 1,
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      cachedTokens: 0,
      costUsd: 0,
    });
    expect(access[0].requestId).toMatch(/^req_/);
    expect(access[0].latencyMs).toEqual(expect.any(Number));
    // The breaker is open: the second request goes straight to the secondary.
    expect(access[1]).toMatchObject({ attempts: 1, failovers: 0, retries: 0, endpoint: 'secondary' });

    const text = logger.text();
    expect(text).toContain('backend overloaded for key [redacted]');
    expect(text).not.toContain(VENDOR_KEY);
    expect(text).not.toContain(FRAGMENT);
    expect(text).not.toContain(GATEWAY_KEY);
  });

  it("an access line's cost includes the estimates of attempts the vendor bills without usage, marked as such", async () => {
    const silent = await vendor(() => new Promise<void>(() => undefined)); // never sends its headers
    const backup = await vendor(answers(['from backup']));
    const logger = recordingLogger();
    const price = { input: 1000, output: 2000 };
    const pipeline = createPipeline({
      endpoints: [
        { name: 'silent', provider: 'openai', baseUrl: silent.url, apiKey: VENDOR_KEY, timeouts: { firstByteMs: 200 } },
        { name: 'backup', provider: 'openai', baseUrl: backup.url, apiKey: VENDOR_KEY },
      ],
      models: { chat: [{ endpoint: 'silent', model: 'slow', price }, { endpoint: 'backup', model: 'fast', price }], direct: [{ endpoint: 'backup', model: 'fast', price }] },
      providers: [openaiProvider],
      plugins: [quota({ estimates: { outputTokensPerSecond: 100 } })],
    });
    const billed: SwitchyardEvents['usage:billed'][0][] = [];
    pipeline.events.on('usage:billed', (b) => billed.push(b));
    const { client } = await startGateway(pipeline, { logger });
    await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(40) }] });
    await client.chat.completions.create({ model: 'direct', messages: [{ role: 'user', content: 'hi' }] });
    const [failedOver, direct] = logger.lines.filter((l) => l.event === 'access');
    const [estimate, answered, plain] = billed;
    // The silent vendor had the request for 200 ms: 10 input tokens and about 20 output tokens, estimated.
    expect(estimate).toMatchObject({ estimated: true, inputTokens: 10 });
    expect(estimate.outputTokens).toBeGreaterThanOrEqual(20);
    expect(answered.estimated).toBe(false);
    expect(failedOver).toMatchObject({ endpoint: 'backup', attempts: 2, costEstimated: true, estimatedCostUsd: Number(estimate.costUsd.toFixed(8)), costUsd: Number((estimate.costUsd + answered.costUsd).toFixed(8)) });
    expect(failedOver.costUsd).toBeGreaterThan(answered.costUsd);
    expect(direct).toMatchObject({ costEstimated: false, estimatedCostUsd: 0, costUsd: Number(plain.costUsd.toFixed(8)) });
  });

  it('logs an error access line with the error kind and code when every candidate failed', async () => {
    const primary = await vendor(echoesKey);
    const logger = recordingLogger();
    const { client } = await startGateway(pipelineFor({ vendors: { primary } }), { logger });
    await expect(client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow();
    const failed = logger.lines.find((l) => l.event === 'attempt_failed');
    expect(failed).toMatchObject({ decision: 'give-up' });
    const access = logger.lines.find((l) => l.event === 'access');
    expect(access).toMatchObject({ level: 'warn', outcome: 'error', status: 503, attempts: 1, errorKind: 'all-candidates-failed', errorCode: 'SWITCHYARD_ERR_ALL_CANDIDATES_FAILED' });
    expect(logger.text()).not.toContain(FRAGMENT);
  });

  it('logs a load-shed line when maxInFlight is reached', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow: Handler = async (req, res, body) => {
      await held;
      answers(['late'])(req, res, body);
    };
    const primary = await vendor(slow);
    const logger = recordingLogger();
    const { client, gateway } = await startGateway(pipelineFor({ vendors: { primary } }), { logger, server: { maxInFlight: 1 } });
    const pending = client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    await expect.poll(() => gateway.inFlight, { interval: 10 }).toBe(1);
    await expect(client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'shed' }] })).rejects.toMatchObject({ status: 503 });
    release();
    await pending;
    expect(logger.lines.find((l) => l.event === 'load_shed')).toMatchObject({ level: 'warn', inFlight: 1, limit: 1 });
    expect(logger.lines.filter((l) => l.event === 'access').map((l) => [l.status, l.outcome])).toEqual([[503, 'error'], [200, 'success']]);
    // A request without a gateway key gets an access line too.
    expect((await fetch(`${gateway.address!.url}/models`)).status).toBe(401);
    expect(logger.lines.at(-1)).toMatchObject({ event: 'access', level: 'info', status: 401, errorCode: 'invalid_api_key', route: '/v1/models' });
  });

  it('gives lines refused before routing the model asked for and the code they were refused with', async () => {
    const primary = await vendor(answers(['hi']));
    const logger = recordingLogger();
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }), { logger });
    const post = (path: string, body: string) => raw(origin, path, { body });
    expect((await post('/v1/chat/completions', JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }))).status).toBe(404);
    expect((await post('/v1/chat/completions', JSON.stringify({ model: 'chat', messages: 'not a list' }))).status).toBe(400);
    expect((await post('/v1/chat/completions', '{"model": "chat", ')).status).toBe(400);
    const lines = logger.lines.filter((l) => l.event === 'access').map((l) => ({ status: l.status, model: l.model, errorCode: l.errorCode, level: l.level }));
    expect(lines).toEqual([
      { status: 404, model: 'no-such-model', errorCode: 'SWITCHYARD_ERR_UNKNOWN_MODEL', level: 'info' },
      { status: 400, model: 'chat', errorCode: 'SWITCHYARD_ERR_INVALID_REQUEST', level: 'info' },
      { status: 400, model: undefined, errorCode: 'invalid_json', level: 'info' },
    ]);
  });

  it('logs a health flip and /status shows the score', async () => {
    const primary = await vendor(echoesKey);
    const secondary = await vendor(answers(['fine']));
    const logger = recordingLogger();
    const { client, origin } = await startGateway(pipelineFor({ vendors: { primary, secondary }, extra: { plugins: [health({ minSamples: 2 })] } }), { logger });
    for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: `hi ${i}` }] });
    const flip = logger.lines.find((l) => l.event === 'health_unhealthy');
    expect(flip).toMatchObject({ level: 'warn', deployment: 'primary/primary-model', score: expect.any(Number) });
    expect(flip!.score as number).toBeLessThan(0.5);
    const status = await (await fetch(`${origin}/status`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).json();
    expect(status.models[0].deployments[0]).toMatchObject({ id: 'primary/primary-model', healthy: false, healthScore: flip!.score });
  });

  it('logs an error pattern as it starts and ends, and /status lists it while it goes on', async () => {
    let down = true;
    const primary = await vendor((req, res, body) => (down ? echoesKey(req, res, body) : answers(['back'])(req, res, body)));
    const secondary = await vendor(answers(['fine']));
    const logger = recordingLogger();
    const { client, origin } = await startGateway(pipelineFor({ vendors: { primary, secondary }, extra: { plugins: [health({ minSamples: 1000, patterns: { sameError: { inARow: 3 } } })] } }), { logger });
    for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: `hi ${i}` }] });
    const started = logger.lines.find((l) => l.event === 'error_pattern_started');
    expect(started).toMatchObject({ level: 'warn', deployment: 'primary/primary-model', pattern: 'same-error', errorKind: 'overloaded', status: 503, count: 3 });
    const status = await (await fetch(`${origin}/status`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).json();
    expect(status.models[0].deployments[0].patterns).toEqual([{ pattern: 'same-error', kind: 'overloaded', code: 'SWITCHYARD_ERR_OVERLOADED', status: 503, since: expect.any(String) }]);
    down = false;
    await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'again' }] });
    expect(logger.lines.find((l) => l.event === 'error_pattern_ended')).toMatchObject({ level: 'info', deployment: 'primary/primary-model' });
    expect(logger.text()).not.toContain(FRAGMENT);
  });
});
