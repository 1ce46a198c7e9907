/**
 * Faults through the production path: createPipeline → core undici transport → the msw bridge,
 * on a virtual clock. Checks the caller's view (whole answer or a clean error, never a truncated
 * success) and the vendor's view (what each fault saw).
 */
import { describe, expect, it } from 'vitest';
import { createPipeline, runWithVirtualTime, VirtualClock, type StreamPart } from '@switchyard/core';
import { createMswDispatcher, healthyText, vendorFaults, type FaultHandler } from '../src/index.js';
import { testProvider } from '../../core/test/support/test-provider.js';

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

function setup() {
  const clock = new VirtualClock();
  const a = vendorFaults('openai', { baseUrl: 'http://a.test/v1', clock });
  const b = vendorFaults('openai', { baseUrl: 'http://b.test/v1', clock });
  const handlers: FaultHandler[] = [];
  const pipeline = createPipeline({
    endpoints: [
      { name: 'a', provider: 'test', baseUrl: a.baseUrl },
      { name: 'b', provider: 'test', baseUrl: b.baseUrl },
    ],
    models: { chat: [{ endpoint: 'a', model: 'm' }, { endpoint: 'b', model: 'm' }] },
    providers: [testProvider],
    dispatcher: createMswDispatcher(() => handlers),
    clock,
  });
  const run = <T>(work: Promise<T>) => runWithVirtualTime(clock, work, { stepMs: 500 });
  return { clock, a, b, handlers, pipeline, run };
}

async function drain(stream: AsyncIterable<StreamPart>): Promise<{ text: string; parts: StreamPart[] }> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return { text: parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join(''), parts };
}

describe('faults before the commit point fail over invisibly', () => {
  it('connection reset before headers → next endpoint', async () => {
    const { a, b, handlers, pipeline } = setup();
    const reset = a.reset();
    const ok = b.ok();
    handlers.push(reset, ok);
    const r = await pipeline.chat(ask);
    expect(r.switchyard).toMatchObject({ endpoint: 'b', attempts: 2 });
    expect([reset.fault.seen, ok.fault.seen]).toEqual([1, 1]);
  });

  it('persistent 429 and 503 → next endpoint; Anthropic-style overload counts as one attempt', async () => {
    const { a, b, handlers, pipeline } = setup();
    const limited = a.rateLimited();
    handlers.push(limited, b.ok());
    for (let i = 0; i < 3; i++) expect((await pipeline.chat(ask)).switchyard).toMatchObject({ endpoint: 'b' });
    expect(limited.fault.answered).toBe(3);
  });

  it('accepted but never answered → the header limit moves on (virtual time)', async () => {
    const { a, b, handlers, pipeline, run, clock } = setup();
    handlers.push(a.hang(), b.ok({ tokens: 5 }));
    const started = clock.now();
    const s = await run(pipeline.stream(ask));
    const { text } = await run(drain(s));
    expect(text).toBe(healthyText(5));
    expect(s.info).toMatchObject({ endpoint: 'b' });
    // The default streaming header limit is 10 s.
    expect(clock.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(clock.now() - started).toBeLessThan(12_000);
  });

  it('slow first token → the time-to-first-token limit moves on', async () => {
    const { a, b, handlers, pipeline, run, clock } = setup();
    const slow = a.slowFirstToken({ firstTokenMs: 15_000 });
    handlers.push(slow, b.ok());
    const started = clock.now();
    const s = await run(pipeline.stream(ask));
    expect((await run(drain(s))).text).toBe(healthyText());
    expect(s.info).toMatchObject({ endpoint: 'b' });
    expect(clock.now() - started).toBeLessThan(15_000);
    expect(slow.fault.answered).toBe(1);
  });

  it('context length exceeded is the request’s fault: no failover', async () => {
    const { a, b, handlers, pipeline } = setup();
    const ok = b.ok();
    handlers.push(a.contextLength(), ok);
    await expect(pipeline.chat(ask)).rejects.toMatchObject({ kind: 'context-length' });
    expect(ok.fault.seen).toBe(0);
  });
});

describe('faults after the commit point end the stream with an error, never a truncated success', () => {
  it('stream cut mid-answer', async () => {
    const { a, b, handlers, pipeline, run } = setup();
    const ok = b.ok();
    // Tokens spaced like a real stream: unread data is lost when a connection dies, as in undici.
    handlers.push(a.streamCut({ afterTokens: 3, tokenDelay: 20 }), ok);
    const s = await run(pipeline.stream(ask));
    const { text, parts } = await run(drain(s));
    expect(text).toBe(healthyText(3));
    expect(parts.at(-1)?.type).toBe('error');
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    expect(ok.fault.seen).toBe(0);
  });

  it('stream stall with the connection open → idle limit', async () => {
    const { a, b, handlers, pipeline, run, clock } = setup();
    handlers.push(a.streamStall({ afterTokens: 2 }), b.ok());
    const started = clock.now();
    const s = await run(pipeline.stream(ask));
    const { text, parts } = await run(drain(s));
    expect(text).toBe(healthyText(2));
    const last = parts.at(-1);
    expect(last?.type === 'error' && last.error.kind).toBe('idle-timeout');
    expect(clock.now() - started).toBeGreaterThanOrEqual(30_000);
  });

  it('an error event inside a 200 stream', async () => {
    const { a, b, handlers, pipeline, run } = setup();
    handlers.push(a.streamError({ afterTokens: 2, tokenDelay: 20 }), b.ok());
    const { text, parts } = await run(drain(await run(pipeline.stream(ask))));
    expect(text).toBe(healthyText(2));
    expect(parts.at(-1)?.type).toBe('error');
  });
});

describe('survivable stream oddities', () => {
  it('a malformed event mid-stream is skipped; the answer is whole', async () => {
    const { a, handlers, pipeline, run } = setup();
    handlers.push(a.malformedEvent({ tokens: 10, afterTokens: 4 }));
    const full = await run((await run(pipeline.stream(ask))).collect());
    expect(full.choices[0].message.content).toBe(healthyText(10));
  });

  it('a finished stream without [DONE] is a success', async () => {
    const { a, handlers, pipeline, run } = setup();
    handlers.push(a.noDone({ tokens: 60 }));
    const full = await run((await run(pipeline.stream(ask))).collect());
    expect(full.choices[0].message.content).toBe(healthyText(60));
    expect(full.choices[0].finish_reason).toBe('stop');
  });
});
