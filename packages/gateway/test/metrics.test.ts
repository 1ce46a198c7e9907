import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createPipeline, definePlugin, STAGE } from '@switchyard/core';
import { openaiProvider, providers as openaiFamily } from '@switchyard/provider-openai';
import { providers as geminiProviders } from '@switchyard/provider-gemini';
import { geminiDialect } from '@switchyard/provider-gemini/dialect';
import { DEFAULT_DIALECTS } from '../src/index.js';
import { metrics } from '@switchyard/plugin-metrics';
import { retry } from '@switchyard/plugin-retry';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { answers, fails, GATEWAY_KEY, startGateway, stopAll, vendor, VENDOR_KEY, sseBody, type Handler } from './support/harness.js';
import { sample } from './support/exposition.js';
import { findTool } from './support/system-tool.js';

afterEach(stopAll);

const PRIMARY = 'primary/primary-model';
const SECONDARY = 'secondary/secondary-model';
const PRICE = { input: 1, output: 2 };

/** A vendor that answers each request with the next handler of a script (the last one repeats). */
function scripted(handlers: Handler[]): Handler {
  let i = 0;
  return (req, res, body) => handlers[Math.min(i++, handlers.length - 1)](req, res, body);
}

/** Streams one chunk and then never another byte: the client leaves mid-stream. */
const hangsMidStream: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(sseBody([{ id: 'c', model: 'm', choices: [{ delta: { role: 'assistant', content: 'first' }, finish_reason: null }] }], false));
};

const cannedForFallback = definePlugin({
  name: 'test-canned',
  apply(pipeline) {
    pipeline.hooks.degrade.tapPromise({ name: 'test-canned', stage: STAGE.DEFAULT }, async (_error, ctx) =>
      ctx.model === 'fallback' ? { level: 'canned', response: { id: 'canned', object: 'chat.completion', created: 1, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: 'later' }, finish_reason: 'stop' }] } } : undefined,
    );
  },
});

async function scrape(origin: string): Promise<string> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

describe('/metrics with @switchyard/plugin-metrics', () => {
  it('holds the values a mixed run implies (success, retry + failover, 429, degrade, stream, cancelled stream) and passes promtool', async () => {
    const primary = await vendor(scripted([answers(['ok']), fails(503, `overloaded for ${VENDOR_KEY}`), fails(503), answers(['str', 'eam']), hangsMidStream]));
    const secondary = await vendor(answers(['backup']));
    const limited = await vendor(fails(429, 'slow down', { type: 'rate_limit_error' }));
    const broken = await vendor(fails(500));
    const registry = new Registry();
    const endpoints = [
      { name: 'primary', provider: 'openai', baseUrl: primary.url, apiKey: VENDOR_KEY },
      { name: 'secondary', provider: 'openai', baseUrl: secondary.url, apiKey: VENDOR_KEY },
      { name: 'limited', provider: 'openai', baseUrl: limited.url, apiKey: VENDOR_KEY },
      { name: 'broken', provider: 'openai', baseUrl: broken.url, apiKey: VENDOR_KEY },
    ];
    const pipeline = createPipeline({
      endpoints,
      models: {
        chat: [{ endpoint: 'primary', model: 'primary-model', price: PRICE }, { endpoint: 'secondary', model: 'secondary-model', price: PRICE }],
        solo: [{ endpoint: 'limited', model: 'm' }],
        fallback: [{ endpoint: 'broken', model: 'm' }],
      },
      providers: [openaiProvider],
      plugins: [metrics({ registry }), retry({ maxAttemptsPerCandidate: 2, maxRetryAfterWaitMs: 0, backoff: { jitter: 'full', probeMinMs: 5, probeMaxMs: 10, baseMs: 20, capMs: 50 } }), circuitBreaker({ consecutiveFailures: 50 }), cannedForFallback()],
    });
    const { client, origin } = await startGateway(pipeline);
    const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }] });

    expect((await client.chat.completions.create(ask('chat'))).choices[0].message.content).toBe('ok'); // 1: success on primary
    expect((await client.chat.completions.create(ask('chat'))).choices[0].message.content).toBe('backup'); // 2: 503, retry, 503, failover
    await expect(client.chat.completions.create(ask('solo'))).rejects.toMatchObject({ status: 429 }); // 3: 429, no other candidate
    expect((await client.chat.completions.create(ask('fallback'))).choices[0].message.content).toBe('later'); // 4: 500, retry, 500, degraded
    let streamed = '';
    for await (const c of await client.chat.completions.create({ ...ask('chat'), stream: true })) streamed += c.choices[0]?.delta?.content ?? ''; // 5: stream
    expect(streamed).toBe('stream');
    for await (const c of await client.chat.completions.create({ ...ask('chat'), stream: true })) {
      expect(c.choices[0].delta.content).toBe('first');
      break; // 6: the client leaves mid-stream
    }
    await expect.poll(async () => sample(await scrape(origin), 'switchyard_requests_total', { model: 'chat', outcome: 'cancelled' })).toBe(1);

    const text = await scrape(origin);
    const v = (name: string, labels?: Record<string, string>) => sample(text, name, labels);
    expect(v('switchyard_requests_total', { model: 'chat', outcome: 'success' })).toBe(3);
    expect(v('switchyard_requests_total', { model: 'solo', outcome: 'error' })).toBe(1);
    // The one request no candidate answered (its only candidate 429ed); the degraded answer is no such failure.
    expect(v('switchyard_requests_unanswered_total', { model: 'solo', cause: 'failed' })).toBe(1);
    expect(v('switchyard_requests_unanswered_total', { model: 'fallback', cause: 'failed' })).toBeUndefined();
    expect(v('switchyard_requests_total', { model: 'fallback', outcome: 'degraded' })).toBe(1);
    expect(v('switchyard_request_duration_seconds_count', { model: 'chat', outcome: 'success' })).toBe(3);
    expect(v('switchyard_attempts_total', { deployment: PRIMARY, outcome: 'success', status_class: '2xx' })).toBe(2);
    expect(v('switchyard_attempts_total', { deployment: PRIMARY, outcome: 'endpoint-failure', status_class: '5xx' })).toBe(2);
    expect(v('switchyard_attempts_total', { deployment: 'limited/m', outcome: 'rate-limited', status_class: '4xx' })).toBe(1);
    expect(v('switchyard_attempts_total', { deployment: 'broken/m', outcome: 'endpoint-failure', status_class: '5xx' })).toBe(2);
    expect(v('switchyard_attempts_total', { deployment: PRIMARY, outcome: 'ignored', status_class: 'none' })).toBe(1);
    expect(v('switchyard_attempts_total', { deployment: SECONDARY, outcome: 'success', status_class: '2xx' })).toBe(1);
    expect(v('switchyard_attempt_duration_seconds_count', { deployment: PRIMARY, outcome: 'endpoint-failure' })).toBe(2);
    expect(v('switchyard_failovers_total', { model: 'chat' })).toBe(1);
    expect(v('switchyard_retries_total', { level: '1' })).toBe(2);
    expect(v('switchyard_backoff_seconds_count', { level: '1' })).toBe(2);
    expect(v('switchyard_backoff_seconds_sum', { level: '1' })).toBeGreaterThanOrEqual(0.005);
    expect(v('switchyard_degraded_total', { model: 'fallback', level: 'canned' })).toBe(1);
    // The stream committed at its first token; the cancelled one did too.
    expect(v('switchyard_time_to_first_token_seconds_count', { deployment: PRIMARY })).toBe(2);
    // Tokens: 3 + 2 per completion (success, backup), 4 + 2 for the stream.
    expect(v('switchyard_tokens_total', { deployment: PRIMARY, direction: 'input' })).toBe(3 + 4);
    expect(v('switchyard_tokens_total', { deployment: PRIMARY, direction: 'output' })).toBe(2 + 2);
    expect(v('switchyard_tokens_total', { deployment: SECONDARY, direction: 'input' })).toBe(3);
    expect(v('switchyard_cost_usd_total', { deployment: PRIMARY })).toBeCloseTo((7 * 1 + 4 * 2) / 1e6, 12);
    expect(v('switchyard_breaker_state', { deployment: PRIMARY })).toBe(0);
    expect(v('switchyard_in_flight')).toBe(0);
    expect(v('switchyard_shed_total')).toBe(0);
    // The gateway's own basics: the left stream is a 499, never a 200.
    expect(v('switchyard_gateway_requests_total', { route: '/v1/chat/completions', status: '200' })).toBe(4);
    expect(v('switchyard_gateway_requests_total', { route: '/v1/chat/completions', status: '499' })).toBe(1);
    expect(v('switchyard_gateway_requests_total', { route: '/v1/chat/completions', status: '429' })).toBe(1);
    expect(text).not.toContain(VENDOR_KEY);
    expect(text).not.toContain(VENDOR_KEY.slice(3, 11));
    expect(await registry.metrics()).toContain('switchyard_requests_total');

    // The live scrape taken during this fault run passes the real promtool.
    const promtool = findTool('promtool');
    if (!promtool) return;
    const check = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.stderr + check.stdout).toBe('');
    expect(check.status).toBe(0);
  });

  it('serves the gateway basics through prom-client when the plugin is not configured', async () => {
    const up = await vendor(answers(['ok']));
    const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'openai', baseUrl: up.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'up', model: 'm' }] }, providers: [openaiProvider] });
    const { client, origin } = await startGateway(pipeline);
    await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    const text = await scrape(origin);
    expect(sample(text, 'switchyard_gateway_requests_total', { route: '/v1/chat/completions', status: '200' })).toBe(1);
    expect(sample(text, 'switchyard_gateway_in_flight')).toBe(0);
    expect(text).not.toContain('switchyard_requests_total');
  });

  it("labels every dialect's routes by their own route (Messages, count_tokens, Responses and a stored response), never as other", async () => {
    const up = await vendor(answers(['ok']));
    const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'openai-compatible', baseUrl: up.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'up', model: 'm' }] }, providers: openaiFamily });
    const { client, origin } = await startGateway(pipeline);
    const post = (path: string, body: unknown) => fetch(origin + path, { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());
    await post('/v1/messages', { model: 'chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
    await post('/v1/messages/count_tokens', { model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    await client.responses.create({ model: 'chat', input: 'hi' });
    await client.responses.retrieve('resp_unknown').catch(() => undefined);
    const text = await scrape(origin);
    expect(sample(text, 'switchyard_gateway_requests_total', { route: '/v1/messages', status: '200' })).toBe(1);
    expect(sample(text, 'switchyard_gateway_requests_total', { route: '/v1/messages/count_tokens', status: '200' })).toBe(1);
    expect(sample(text, 'switchyard_gateway_requests_total', { route: '/v1/responses', status: '200' })).toBe(1);
    expect(text).not.toMatch(/switchyard_gateway_requests_total\{route="other"/);
  });
});

describe('gateway metrics: routes with parameters', () => {
  it('labels a Gemini call by its route pattern, never by the model in its URL and never as other', async () => {
    const up = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } }));
    });
    const pipeline = createPipeline({ endpoints: [{ name: 'g', provider: 'gemini', baseUrl: up.url, apiKey: VENDOR_KEY }], models: { 'gemini-x': [{ endpoint: 'g', model: 'm' }] }, providers: geminiProviders });
    const { origin } = await startGateway(pipeline, { dialects: [...DEFAULT_DIALECTS, geminiDialect] });
    const generate = (model: string) => fetch(`${origin}/v1beta/models/${model}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect((await generate('gemini-x')).status).toBe(200);
    expect((await generate('no-such-model')).status).toBe(404);
    const text = await scrape(origin);
    expect(sample(text, 'switchyard_gateway_requests_total', { route: '/v1beta/models/{model}:generateContent', status: '200' })).toBe(1);
    expect(sample(text, 'switchyard_gateway_requests_total', { route: '/v1beta/models/{model}:generateContent', status: '404' })).toBe(1);
    expect(text).not.toContain('no-such-model');
    expect(text).not.toMatch(/switchyard_gateway_requests_total\{route="other"/);
  });
});
