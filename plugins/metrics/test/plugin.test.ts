import { SERVICE, type MetricsService } from '@switchyard/contracts';
import { describe, expect, it } from 'vitest';
import { Registry, register } from 'prom-client';
import { candidateRef, createPipeline, getService } from '@switchyard/core';
import { createPipelineFromConfig, parseConfig } from '@switchyard/core/config';
import { openaiProvider } from '@switchyard/provider-openai';
import { metrics, statusClass, TallyHistogram } from '@switchyard/plugin-metrics';
import { cache } from '@switchyard/plugin-cache';
import { quota } from '@switchyard/plugin-quota';
import { health } from '@switchyard/plugin-health';
import { fail, ok, scriptedTransport } from '../../retry/test/support/in-process.js';

/** `fail-503` answers 503, anything else answers with usage (10 input of which 4 cached, 5 output). */
const transport = () =>
  scriptedTransport(({ body }) => {
    if (body.model.startsWith('fail-')) return fail(Number(body.model.slice(5)));
    const answer = ok('ok', body.model);
    (answer.body as { usage: unknown }).usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } };
    return answer;
  }, Date.now);

const endpoints = [{ name: 'a', provider: 'openai', baseUrl: 'http://a.test/v1', apiKey: 'sk-test-0123456789' }];

const setup = (registry: Registry) =>
  createPipeline({
    endpoints,
    models: { chat: [{ endpoint: 'a', model: 'fail-503' }, { endpoint: 'a', model: 'ok', price: { input: 2, output: 4, cachedInput: 1 } }] },
    providers: [openaiProvider],
    transport: transport(),
    plugins: [metrics({ registry })],
  });

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

/** A failing and an answering deployment, with the health plugin beside the metrics. */
function withHealth(healthPlugin: ReturnType<typeof health>) {
  const registry = new Registry();
  const models = { chat: [{ endpoint: 'a', model: 'fail-503' }, { endpoint: 'a', model: 'ok' }] };
  return { registry, pipeline: createPipeline({ endpoints, models, providers: [openaiProvider], transport: transport(), plugins: [metrics({ registry }), healthPlugin] }) };
}

async function value(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l) && Object.keys(v.labels).length === Object.keys(labels).length)?.value;
}

describe('@switchyard/plugin-metrics', () => {
  it('counts requests, attempts by status class, failovers, tokens (cached included) and cost from the deployment price', async () => {
    const registry = new Registry();
    const pipeline = setup(registry);
    await pipeline.chat(ask);
    expect(await value(registry, 'switchyard_requests_total', { model: 'chat', outcome: 'success' })).toBe(1);
    expect(await value(registry, 'switchyard_attempts_total', { deployment: 'a/fail-503', outcome: 'endpoint-failure', status_class: '5xx' })).toBe(1);
    expect(await value(registry, 'switchyard_failovers_total', { model: 'chat' })).toBe(1);
    expect(await value(registry, 'switchyard_tokens_total', { deployment: 'a/ok', direction: 'cached' })).toBe(4);
    // 6 fresh input × 2 + 4 cached × 1 + 5 output × 4, per million tokens.
    expect(await value(registry, 'switchyard_cost_usd_total', { deployment: 'a/ok' })).toBeCloseTo((6 * 2 + 4 + 20) / 1e6, 12);
    expect(await value(registry, 'switchyard_breaker_state', { deployment: 'a/ok' })).toBe(0);
    await pipeline.close();
  });

  it('exports the health plugin\'s EWMA error rate per deployment, read when scraped', async () => {
    const { registry, pipeline } = withHealth(health());
    expect(await value(registry, 'switchyard_health_error_rate_ewma', { deployment: 'a/fail-503' })).toBeUndefined();
    await pipeline.chat(ask);
    await pipeline.chat(ask);
    expect(await value(registry, 'switchyard_health_error_rate_ewma', { deployment: 'a/fail-503' })).toBeCloseTo(1, 3);
    expect(await value(registry, 'switchyard_health_error_rate_ewma', { deployment: 'a/ok' })).toBe(0);
    await pipeline.close();
  });

  it('shows error patterns going on (health:pattern) and counts their starts', async () => {
    const { registry, pipeline } = withHealth(health({ minSamples: 1000, patterns: { sameError: { inARow: 2 } } }));
    await pipeline.chat(ask);
    expect(await value(registry, 'switchyard_error_pattern_active', { deployment: 'a/fail-503', pattern: 'same-error', kind: 'overloaded' })).toBeUndefined();
    await pipeline.chat(ask);
    expect(await value(registry, 'switchyard_error_pattern_active', { deployment: 'a/fail-503', pattern: 'same-error', kind: 'overloaded' })).toBe(1);
    expect(await value(registry, 'switchyard_error_patterns_total', { deployment: 'a/fail-503', pattern: 'same-error' })).toBe(1);
    pipeline.events.emit('health:pattern', { deployment: 'a/fail-503', pattern: 'same-error', active: false, kind: 'overloaded', code: 'SWITCHYARD_ERR_OVERLOADED', status: 503, count: 2, since: 0, message: 'ended' });
    expect(await value(registry, 'switchyard_error_pattern_active', { deployment: 'a/fail-503', pattern: 'same-error', kind: 'overloaded' })).toBe(0);
    pipeline.events.emit('quality:change', { deployment: 'a/ok', ok: false, failed: [], drift: [] });
    expect(await value(registry, 'switchyard_quality_ok', { deployment: 'a/ok' })).toBe(0);
    await pipeline.close();
  });

  it("counts conversations a failover moved off the deployment holding their prompt cache (the router's cache:lost)", async () => {
    const registry = new Registry();
    const pipeline = setup(registry);
    const to = candidateRef(pipeline.candidatesFor('chat')[1]);
    pipeline.events.emit('cache:lost', { requestId: 'r1', model: 'chat', from: 'a/fail-503', to, source: 'session' });
    pipeline.events.emit('cache:lost', { requestId: 'r2', model: 'chat', from: 'a/fail-503', to, source: 'prompt-cache-key' });
    expect(await value(registry, 'switchyard_prompt_cache_lost_total', { model: 'chat', deployment: 'a/fail-503' })).toBe(2);
    await pipeline.close();
  });

  it('counts requests and spend per gateway key, with a bounded number of key series', async () => {
    const registry = new Registry();
    const pipeline = createPipeline({ endpoints, models: { chat: [{ endpoint: 'a', model: 'ok', price: { input: 2, output: 4, cachedInput: 1 } }] }, providers: [openaiProvider], transport: transport(), plugins: [metrics({ registry, maxGatewayKeys: 2 })] });
    for (const keyId of ['key_a', 'key_a', 'key_b', 'key_c', 'key_d']) await pipeline.chat(ask, { caller: { keyId, keyName: `name of ${keyId}`, team: keyId === 'key_b' ? 'b' : undefined } });
    await pipeline.chat(ask);
    expect(await value(registry, 'switchyard_gateway_key_requests_total', { gateway_key: 'key_a', team: '', outcome: 'success' })).toBe(2);
    expect(await value(registry, 'switchyard_gateway_key_requests_total', { gateway_key: 'key_b', team: 'b', outcome: 'success' })).toBe(1);
    // Past two keys, the others share one series.
    expect(await value(registry, 'switchyard_gateway_key_requests_total', { gateway_key: '(other)', team: '(other)', outcome: 'success' })).toBe(2);
    const series = (await registry.getSingleMetric('switchyard_gateway_key_requests_total')!.get()).values;
    expect(series).toHaveLength(3);
    expect(await value(registry, 'switchyard_gateway_key_cost_usd_total', { gateway_key: 'key_a', team: '' })).toBeCloseTo((2 * (6 * 2 + 4 + 20)) / 1e6, 12);
    await pipeline.close();
  });

  it('keeps counting into the same series after a reload (a new pipeline on the same registry)', async () => {
    const registry = new Registry();
    const first = setup(registry);
    await first.chat(ask);
    await first.close();
    const second = setup(registry);
    await second.chat(ask);
    expect(await value(registry, 'switchyard_requests_total', { model: 'chat', outcome: 'success' })).toBe(2);
    // Closed pipelines no longer count.
    await first.chat(ask).catch(() => undefined);
    expect(await value(registry, 'switchyard_requests_total', { model: 'chat', outcome: 'success' })).toBe(2);
    await second.close();
  });

  it('is one line in YAML, provides its registry as the metrics service and defaults to prom-client\'s registry', async () => {
    const config = parseConfig(`
endpoints: [{ name: a, provider: openai, baseUrl: "http://a.test/v1", apiKey: sk-test-0123456789 }]
models: { chat: [{ endpoint: a, model: ok }] }
plugins:
  - "@switchyard/plugin-metrics"
`, {});
    const pipeline = await createPipelineFromConfig(config, { transport: transport() });
    await pipeline.chat(ask);
    const service = getService<MetricsService>(pipeline, SERVICE.metrics)!;
    expect(service.registry).toBe(register);
    expect(await service.exposition()).toMatch(/switchyard_requests_total\{model="chat",outcome="success"\} 1/);
    await pipeline.close();
  });

  it('rejects options that are not a registry or buckets that do not increase', () => {
    expect(() => metrics({ registry: {} as never })).toThrow(/registry/);
    expect(() => metrics({ buckets: { request: [1, 0.5] } } as never)).toThrow(/increasing/);
  });

  it('maps statuses to bounded classes', () => {
    expect([statusClass(undefined, true), statusClass(503, false), statusClass(429, false), statusClass(undefined, false), statusClass(999, false)]).toEqual(['2xx', '5xx', '4xx', 'none', 'none']);
  });
});

describe('@switchyard/plugin-metrics with the policy plugins', () => {
  it('counts cache hits and misses, budget use at thresholds and parked keys from the real plugins', async () => {
    const registry = new Registry();
    const script = scriptedTransport(({ body }) => (body.model === 'broke' ? fail(402, 'insufficient balance', { code: 'insufficient_quota' }) : ok('ok', body.model)), Date.now);
    const pipeline = createPipeline({
      endpoints: [
        { name: 'a', provider: 'openai', baseUrl: 'http://a.test/v1', apiKeys: ['sk-test-0123456789', 'sk-test-9876543210'] },
        { name: 'b', provider: 'openai', baseUrl: 'http://b.test/v1', apiKey: 'sk-test-abcdefghij' },
      ],
      models: { chat: [{ endpoint: 'a', model: 'broke' }, { endpoint: 'b', model: 'ok' }] },
      providers: [openaiProvider],
      transport: script,
      plugins: [metrics({ registry }), cache(), quota({ budgets: [{ model: 'chat', rpm: 4 }] })],
    });
    await pipeline.chat(ask);
    await pipeline.chat(ask); // the same request: a cache hit
    await pipeline.chat({ ...ask, messages: [{ role: 'user', content: 'other' }] });
    expect(await value(registry, 'switchyard_cache_lookups_total', { result: 'miss' })).toBe(2);
    expect(await value(registry, 'switchyard_cache_lookups_total', { result: 'hit' })).toBe(1);
    // Both keys of `a` answered 402 once and are parked; 4 attempts used rpm 4 past its 80 % threshold.
    expect(await value(registry, 'switchyard_keys_parked', { endpoint: 'a' })).toBe(2);
    expect(await value(registry, 'switchyard_budget_used_ratio', { scope: 'model:chat' })).toBeGreaterThanOrEqual(0.8);
    await pipeline.close();
  });
});

describe('TallyHistogram', () => {
  it('renders cumulative buckets (a value on a bound counts in it), sum and count, and skips non-finite values', async () => {
    const registry = new Registry();
    const h = new TallyHistogram({ name: 'test_seconds', help: 'h', labelNames: ['k'], buckets: [0.1, 1], registers: [registry] });
    for (const v of [0.05, 0.1, 0.5, 2, Number.NaN]) h.observe(v, 'a');
    expect(await registry.metrics()).toBe(
      '# HELP test_seconds h\n# TYPE test_seconds histogram\n' +
        'test_seconds_bucket{k="a",le="0.1"} 2\ntest_seconds_bucket{k="a",le="1"} 3\ntest_seconds_bucket{k="a",le="+Inf"} 4\ntest_seconds_sum{k="a"} 2.65\ntest_seconds_count{k="a"} 4\n',
    );
    registry.resetMetrics();
    expect(await registry.metrics()).toBe('# HELP test_seconds h\n# TYPE test_seconds histogram\n');
  });
});
