import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createPipeline, definePlugin, STAGE, type ChatRequest, type Plugin } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { otel } from '@switchyard/plugin-otel';
import { fail, ok, scriptedTransport } from '../../retry/test/support/in-process.js';

const INBOUND_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INBOUND_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${INBOUND_TRACE}-${INBOUND_SPAN}-01`;

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

function setup(extraPlugins: Plugin[] = []) {
  const { exporter, tracer } = tracing();
  const seen: { host: string; traceparent?: string }[] = [];
  const transport = scriptedTransport(({ host, request, body }) => {
    seen.push({ host, traceparent: request.headers.traceparent });
    if (host === 'primary.test') return fail(503, 'overloaded');
    if (host === 'broken.test') return fail(500, 'down');
    const answer = ok('hello', `${body.model}-2025`);
    (answer.body as { usage: unknown }).usage = { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 };
    return answer;
  }, Date.now);
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai', baseUrl: 'https://primary.test/v1', apiKey: 'sk-a-0123456789' },
      { name: 'backup', provider: 'openai', baseUrl: 'https://backup.test/v1', apiKey: 'sk-b-0123456789' },
      { name: 'broken', provider: 'openai', baseUrl: 'https://broken.test/v1', apiKey: 'sk-c-0123456789' },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'gpt-a' }, { endpoint: 'backup', model: 'gpt-b' }], lonely: [{ endpoint: 'broken', model: 'gpt-c' }] },
    providers: [openaiProvider],
    transport,
    plugins: [otel({ tracer }), circuitBreaker({ consecutiveFailures: 1 }), ...extraPlugins],
  });
  return { pipeline, exporter, seen };
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe('@switchyard/plugin-otel', () => {
  it('makes one request span with a child span per attempt, GenAI attributes, events, and continues the caller\'s trace upstream', async () => {
    const { pipeline, exporter, seen } = setup();
    const answer = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: TRACEPARENT });
    expect(answer.choices[0].message.content).toBe('hello');

    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(3);
    const [request] = byName(spans, 'chat chat');
    const [failed] = byName(spans, 'chat gpt-a');
    const [answered] = byName(spans, 'chat gpt-b');
    // The caller's trace goes on: same trace id, the inbound span is the request span's parent.
    expect(request.spanContext().traceId).toBe(INBOUND_TRACE);
    expect(request.parentSpanContext?.spanId).toBe(INBOUND_SPAN);
    for (const attempt of [failed, answered]) {
      expect(attempt.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(attempt.spanContext().traceId).toBe(INBOUND_TRACE);
      expect(attempt.kind).toBe(SpanKind.CLIENT);
    }
    expect(request.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'chat', 'gen_ai.response.model': 'gpt-b-2025', 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 11, 'gen_ai.usage.output_tokens': 3, 'switchyard.attempts': 2, 'switchyard.failovers': 1, 'switchyard.outcome': 'success' });
    expect(failed.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-a', 'error.type': 'overloaded', 'http.response.status_code': 503, 'server.address': 'primary.test', 'switchyard.key_id': 'primary#0' });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(answered.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-b', 'gen_ai.usage.input_tokens': 11, 'gen_ai.usage.output_tokens': 3, 'switchyard.outcome': 'success' });
    expect(answered.status.code).not.toBe(SpanStatusCode.ERROR);
    const events = request.events.map((e) => e.name);
    expect(events).toEqual(expect.arrayContaining(['switchyard.breaker', 'switchyard.failover']));
    expect(request.events.find((e) => e.name === 'switchyard.breaker')!.attributes).toMatchObject({ 'switchyard.deployment': 'primary/gpt-a', 'switchyard.breaker.state': 'open' });

    // Each upstream call carries its own attempt span as parent.
    expect(seen.map((s) => s.traceparent)).toEqual([`00-${INBOUND_TRACE}-${failed.spanContext().spanId}-01`, `00-${INBOUND_TRACE}-${answered.spanContext().spanId}-01`]);
    await pipeline.close();
  });

  it("names the caller on the request span: the gateway key's id and name and its team, never a secret", async () => {
    const { pipeline, exporter } = setup();
    await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { caller: { keyId: 'key_0123456789abcdef', keyName: 'team-a-app', team: 'a' } });
    await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    const [withCaller, without] = byName(exporter.getFinishedSpans(), 'chat chat');
    expect(withCaller.attributes).toMatchObject({ 'switchyard.gateway_key.id': 'key_0123456789abcdef', 'switchyard.gateway_key.name': 'team-a-app', 'switchyard.team': 'a' });
    expect(Object.keys(without.attributes).filter((k) => k.startsWith('switchyard.gateway_key') || k === 'switchyard.team')).toEqual([]);
    await pipeline.close();
  });

  it('starts a new trace without a traceparent, marks a failed request and records the degrade event', async () => {
    const canned = definePlugin({
      name: 'test-canned',
      apply(p) {
        p.hooks.degrade.tapPromise({ name: 'test-canned', stage: STAGE.DEFAULT }, async (_e, ctx) =>
          (ctx.request as ChatRequest).messages[0]?.content === 'degrade me' ? { level: 'canned', response: { id: 'x', object: 'chat.completion', created: 1, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: 'later' }, finish_reason: 'stop' }] } } : undefined,
        );
      },
    });
    const { pipeline, exporter, seen } = setup([canned()]);
    await expect(pipeline.chat({ model: 'lonely', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ kind: 'all-candidates-failed' });
    const failedRequest = byName(exporter.getFinishedSpans(), 'chat lonely')[0];
    expect(failedRequest.parentSpanContext).toBeUndefined();
    expect(failedRequest.status.code).toBe(SpanStatusCode.ERROR);
    expect(failedRequest.attributes).toMatchObject({ 'error.type': 'all-candidates-failed', 'switchyard.outcome': 'error' });
    expect(seen[0].traceparent).toMatch(new RegExp(`^00-${failedRequest.spanContext().traceId}-[0-9a-f]{16}-01$`));

    exporter.reset();
    const degraded = await pipeline.chat({ model: 'lonely', messages: [{ role: 'user', content: 'degrade me' }] });
    expect(degraded.choices[0].message.content).toBe('later');
    const request = byName(exporter.getFinishedSpans(), 'chat lonely')[0];
    expect(request.attributes).toMatchObject({ 'switchyard.outcome': 'degraded', 'switchyard.degraded': 'canned' });
    expect(request.events.map((e) => e.name)).toContain('switchyard.degrade');
    await pipeline.close();
  });

  it('sends the caller\'s traceparent unchanged when told not to propagate, and rejects a tracer that is not one', async () => {
    expect(() => otel({ tracer: {} as never })).toThrow(/Tracer/);
    const { tracer } = tracing();
    const seen: (string | undefined)[] = [];
    const pipeline = createPipeline({
      endpoints: [{ name: 'backup', provider: 'openai', baseUrl: 'https://backup.test/v1', apiKey: 'sk-b-0123456789' }],
      models: { chat: [{ endpoint: 'backup', model: 'gpt-b' }] },
      providers: [openaiProvider],
      transport: scriptedTransport(({ request }) => (seen.push(request.headers.traceparent), ok()), Date.now),
      plugins: [otel({ tracer, propagate: false })],
    });
    await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: TRACEPARENT });
    expect(seen).toEqual([TRACEPARENT]);
    await pipeline.close();
  });
});
