/** Each vendor's faults on the wire, read back through undici and the core SSE parser. */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { isContextLengthMessage, parseRetryAfter, SseParser, type SseEvent } from '@switchyard/core/wire';
import { createMswDispatcher, healthyText, vendorFaults, type FaultHandler, type Vendor } from '../src/index.js';

const BASES: Record<Vendor, string> = { openai: 'http://openai.test/v1', anthropic: 'http://anthropic.test/v1', gemini: 'http://gemini.test/v1beta' };

function urlFor(vendor: Vendor, stream: boolean): string {
  if (vendor === 'openai') return `${BASES.openai}/chat/completions`;
  if (vendor === 'anthropic') return `${BASES.anthropic}/messages`;
  return `${BASES.gemini}/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

function bodyFor(vendor: Vendor, stream: boolean, last: 'user' | 'assistant' = 'user'): unknown {
  if (vendor === 'gemini') return { contents: [{ role: 'user', parts: [{ text: 'hi' }] }, ...(last === 'assistant' ? [{ role: 'model', parts: [{ text: 'Sure' }] }] : [])] };
  const messages = [{ role: 'user', content: 'hi' }, ...(last === 'assistant' ? [{ role: 'assistant', content: 'Sure' }] : [])];
  return { model: vendor === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-5', messages, stream, ...(vendor === 'openai' && stream ? { stream_options: { include_usage: true } } : {}), max_tokens: 100 };
}

async function call(handlers: FaultHandler[], vendor: Vendor, { stream = false, last = 'user' as 'user' | 'assistant' } = {}) {
  const res = await request(urlFor(vendor, stream), { method: 'POST', dispatcher: createMswDispatcher(handlers), headers: { 'content-type': 'application/json' }, body: JSON.stringify(bodyFor(vendor, stream, last)) });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers as Record<string, string>, text };
}

function parseSse(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

/** The answer text, the way each vendor's stream carries it. */
function streamedText(vendor: Vendor, events: SseEvent[]): string {
  let text = '';
  for (const e of events) {
    if (e.data === '[DONE]') continue;
    let json: any;
    try {
      json = JSON.parse(e.data);
    } catch {
      continue;
    }
    if (vendor === 'openai') text += json.choices?.[0]?.delta?.content ?? '';
    else if (vendor === 'anthropic') text += json.delta?.type === 'text_delta' ? json.delta.text : '';
    else text += json.candidates?.[0]?.content?.parts?.map((p: { text?: string }) => p.text ?? '').join('') ?? '';
  }
  return text;
}

function finished(vendor: Vendor, events: SseEvent[]): boolean {
  return events.some((e) => {
    if (vendor === 'openai') return e.data.includes('"finish_reason":"stop"');
    if (vendor === 'anthropic') return e.event === 'message_delta' && e.data.includes('"stop_reason":"end_turn"');
    return e.data.includes('"finishReason":"STOP"');
  });
}

const vendors: Vendor[] = ['openai', 'anthropic', 'gemini'];
const faultsFor = (vendor: Vendor) => vendorFaults(vendor, { baseUrl: BASES[vendor] });

describe.each(vendors)('%s wire', (vendor) => {
  it('answers healthy non-stream and stream requests in the vendor format', async () => {
    const f = faultsFor(vendor);
    const plain = await call([f.ok({ tokens: 60 })], vendor);
    expect(plain.status).toBe(200);
    const json = JSON.parse(plain.text);
    const content = vendor === 'openai' ? json.choices[0].message.content : vendor === 'anthropic' ? json.content[0].text : json.candidates[0].content.parts[0].text;
    expect(content).toBe(healthyText(60));

    const streamed = await call([f.ok({ tokens: 60 })], vendor, { stream: true });
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseSse(streamed.text);
    expect(streamedText(vendor, events)).toBe(healthyText(60));
    expect(finished(vendor, events)).toBe(true);
    if (vendor === 'openai') {
      expect(events.at(-1)!.data).toBe('[DONE]');
      expect(JSON.parse(events.at(-2)!.data).usage.completion_tokens).toBe(60);
    }
    if (vendor === 'anthropic') {
      expect(events.every((e) => e.event === JSON.parse(e.data).type)).toBe(true);
      expect(events.at(-1)!.event).toBe('message_stop');
    }
    if (vendor === 'gemini') {
      expect(streamed.text).toContain('\r\n\r\n');
      expect(streamed.text).not.toContain('[DONE]');
    }
  });

  it('sends 429 with a retry hint once, then lets the next handler answer', async () => {
    const f = faultsFor(vendor);
    const limited = f.rateLimited({ retryAfterS: 2, times: 1 });
    const handlers = [limited, f.ok()];
    const first = await call(handlers, vendor);
    expect(first.status).toBe(429);
    if (vendor === 'gemini') {
      expect(first.headers['retry-after']).toBeUndefined();
      const details = JSON.parse(first.text).error.details as { retryDelay?: string }[];
      expect(details.find((d) => d.retryDelay)?.retryDelay).toBe('2s');
    } else {
      expect(parseRetryAfter(first.headers)).toBe(2000);
    }
    expect((await call(handlers, vendor)).status).toBe(200);
    expect([limited.fault.seen, limited.fault.answered]).toEqual([2, 1]);
  });

  it('keeps a persistent 429 without Retry-After', async () => {
    const f = faultsFor(vendor);
    const limited = f.rateLimited();
    for (let i = 0; i < 3; i++) {
      const r = await call([limited], vendor);
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBeUndefined();
    }
    expect(limited.fault.answered).toBe(3);
  });

  it('speaks the vendor’s error dialect for request and key failures', async () => {
    const f = faultsFor(vendor);
    const ctx = await call([f.contextLength()], vendor);
    expect(ctx.status).toBe(400);
    expect(isContextLengthMessage(JSON.parse(ctx.text).error.message)).toBe(true);

    const key = await call([f.keyInvalid()], vendor);
    expect(key.status).toBe(vendor === 'gemini' ? 400 : 401);
    const credit = await call([f.outOfCredit()], vendor);
    expect(credit.status).toBe(vendor === 'anthropic' ? 402 : 429);
    const body = JSON.parse(credit.text);
    if (vendor === 'openai') expect(body.error.code).toBe('insufficient_quota');
    if (vendor === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: 'billing_error' }, request_id: expect.stringMatching(/^req_/) });
    if (vendor === 'gemini') expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
  });

  it('rejects an assistant prefill and answers a plain conversation', async () => {
    const f = faultsFor(vendor);
    const strict = f.prefillRejected();
    expect((await call([strict], vendor, { last: 'assistant' })).status).toBe(400);
    expect((await call([strict], vendor, { last: 'user' })).status).toBe(200);
  });

  it('puts a malformed event mid-stream and still completes the answer', async () => {
    const r = await call([faultsFor(vendor).malformedEvent({ tokens: 6, afterTokens: 3 })], vendor, { stream: true });
    const events = parseSse(r.text);
    const broken = events.filter((e) => e.data !== '[DONE]' && !isJson(e.data));
    expect(broken).toHaveLength(1);
    expect(streamedText(vendor, events)).toBe(healthyText(6));
    expect(finished(vendor, events)).toBe(true);
  });

  it('reports an error inside a 200 stream with no finish after it', async () => {
    const r = await call([faultsFor(vendor).streamError({ afterTokens: 2 })], vendor, { stream: true });
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(streamedText(vendor, events)).toBe(healthyText(2));
    expect(finished(vendor, events)).toBe(false);
    const last = events.at(-1)!;
    if (vendor === 'anthropic') expect(last.event).toBe('error');
    expect(JSON.parse(last.data).error).toBeDefined();
  });

  it('ends a stream after the finish signal without a terminator (no-done)', async () => {
    const r = await call([faultsFor(vendor).noDone({ tokens: 4 })], vendor, { stream: true });
    const events = parseSse(r.text);
    expect(finished(vendor, events)).toBe(true);
    expect(events.some((e) => e.data === '[DONE]' || e.event === 'message_stop')).toBe(false);
  });

  it('filters content the vendor’s way', async () => {
    const r = await call([faultsFor(vendor).contentFilter()], vendor);
    const body = JSON.parse(r.text);
    if (vendor === 'openai') expect([r.status, body.error.code]).toEqual([400, 'content_filter']);
    if (vendor === 'anthropic') expect([r.status, body.stop_reason]).toEqual([200, 'refusal']);
    if (vendor === 'gemini') expect([r.status, body.promptFeedback.blockReason, body.candidates]).toEqual([200, 'SAFETY', undefined]);
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('vendor-specific faults', () => {
  it('Anthropic 529 overloaded', async () => {
    const r = await call([faultsFor('anthropic').overloaded()], 'anthropic');
    expect(r.status).toBe(529);
    expect(JSON.parse(r.text)).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('500 once, then healthy; 503 persistent', async () => {
    const f = faultsFor('openai');
    const handlers = [f.serverError({ times: 1 }), f.ok()];
    expect((await call(handlers, 'openai')).status).toBe(500);
    expect((await call(handlers, 'openai')).status).toBe(200);
    const down = [f.unavailable(), f.ok()];
    for (let i = 0; i < 3; i++) expect((await call(down, 'openai')).status).toBe(503);
  });

  it('DeepSeek-style 402 when asked', async () => {
    const r = await call([faultsFor('openai').outOfCredit({ status: 402 })], 'openai');
    expect([r.status, JSON.parse(r.text).error.message]).toEqual([402, 'Insufficient Balance']);
  });

  it('ignores other paths under the base URL (they pass to the next handler)', async () => {
    const f = faultsFor('openai');
    const limited = f.rateLimited();
    const res = await request(`${BASES.openai}/embeddings`, { method: 'POST', body: '{}', dispatcher: createMswDispatcher([limited]) }).catch((e: unknown) => e);
    expect(res).toMatchObject({ code: 'SWITCHYARD_ERR_MSW_UNHANDLED' });
    expect(limited.fault.seen).toBe(0);
  });

  it('rejects bad options with a coded error naming the field', () => {
    expect(() => faultsFor('openai').rateLimited({ times: -1 })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_CHAOS_OPTIONS', message: expect.stringContaining('"times"') }));
    expect(() => faultsFor('openai').handler('melted' as never)).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_CHAOS_UNKNOWN_FAULT' }));
    expect(() => vendorFaults('mistral' as never)).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_CHAOS_UNKNOWN_VENDOR' }));
  });
});
