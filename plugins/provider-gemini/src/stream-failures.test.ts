/** How Gemini streams end badly, and finish reasons, through the real pipeline. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest, StreamPart, SwitchyardError } from '@switchyard/core';
import { chunkLines, frameSse, geminiRig, json, sse, type GeminiRig, type Respond } from '../test/harness.js';

const rigs: GeminiRig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.close()));
});
async function rig(respond: Respond) {
  const r = await geminiRig(respond);
  rigs.push(r);
  return r;
}

const ask: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };
const textChunk = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, ...extra }], responseId: 'r1', modelVersion: 'gemini-2.5-flash' });
const errorEvent = JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });

async function readAll(r: GeminiRig): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of await r.pipeline.stream(ask)) parts.push(part);
  return parts;
}

const rejectionOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as SwitchyardError);

describe('stream endings', () => {
  it('EOF without a finishReason after content → the committed stream ends with a stream-cut error part', async () => {
    const lines = chunkLines('google-text.chunks.txt').slice(0, 2);
    const r = await rig(sse(frameSse(lines)));
    const parts = await readAll(r);
    expect(parts.filter((p) => p.type === 'text-delta')).toHaveLength(2);
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    const last = parts.at(-1);
    expect(last).toMatchObject({ type: 'error', error: { kind: 'stream-cut', provider: 'gemini', endpoint: 'google' } });
    const again = await rig(sse(frameSse(lines)));
    await expect((await again.pipeline.stream(ask)).collect()).rejects.toMatchObject({ kind: 'stream-cut' });
  });

  it('EOF before any content → the attempt is a stream-cut and nothing was committed', async () => {
    const r = await rig(sse(frameSse([JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] } }], usageMetadata: { trafficType: 'ON_DEMAND' } })])));
    const error = await rejectionOf(r.pipeline.stream(ask));
    expect(error?.kind).toBe('all-candidates-failed');
    expect(error?.attempts?.[0]).toMatchObject({ kind: 'stream-cut', retryable: true });
  });

  it('an {error} event after content ends the stream with the classified error', async () => {
    const r = await rig(sse(frameSse([textChunk('Hel'), errorEvent])));
    const parts = await readAll(r);
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([{ type: 'text-delta', text: 'Hel' }]);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { kind: 'overloaded', status: 503, vendorCode: 'UNAVAILABLE' } });
  });

  it('an {error} event before content fails the attempt (so it can fail over)', async () => {
    const r = await rig(sse(frameSse([errorEvent])));
    const error = await rejectionOf(r.pipeline.stream(ask));
    expect(error?.attempts?.[0]).toMatchObject({ kind: 'overloaded', retryable: true, endpoint: 'google' });
  });

  it('a finish chunk with no text still completes; usage sent after the finish is kept', async () => {
    const usage = { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 };
    const r = await rig(sse(frameSse([textChunk('Hi'), textChunk('', { finishReason: 'STOP' }), JSON.stringify({ usageMetadata: usage })])));
    const res = await (await r.pipeline.stream(ask)).collect();
    expect(res.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Hi' } });
    expect(res.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  });
});

describe('blocked prompts', () => {
  const blocked = { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 }, responseId: 'b1' };

  it('non-streaming: promptFeedback.blockReason without candidates → content-filter request failure', async () => {
    const r = await rig(json(200, blocked));
    const error = await rejectionOf(r.pipeline.chat(ask));
    expect(error).toMatchObject({ kind: 'content-filter', vendorCode: 'PROHIBITED_CONTENT', retryable: false });
    expect(error?.message).toContain('PROHIBITED_CONTENT');
  });

  it('streaming: the same chunk fails the attempt with content-filter', async () => {
    const r = await rig(sse(frameSse([JSON.stringify(blocked)])));
    const error = await rejectionOf(r.pipeline.stream(ask));
    expect(error).toMatchObject({ kind: 'content-filter' });
  });
});

describe('finish reasons', () => {
  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'other'],
    ['LANGUAGE', 'other'],
    ['OTHER', 'other'],
  ])('%s → %s (raw value kept)', async (raw, unified) => {
    const r = await rig(json(200, { candidates: [{ content: { role: 'model', parts: [{ text: 'partial' }] }, finishReason: raw }], responseId: 'f1' }));
    const res = await r.pipeline.chat(ask);
    expect(res.choices[0].finish_reason).toBe(unified);
    expect(res.providerMetadata?.gemini?.finishReason).toBe(raw);
  });

  it('STOP with functionCall parts → tool_calls; text alongside is kept', async () => {
    const r = await rig(json(200, { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me check.' }, { functionCall: { name: 'f', args: { a: [1, { b: null }] } } }] }, finishReason: 'STOP' }], responseId: 'f2' }));
    const res = await r.pipeline.chat(ask);
    expect(res.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { content: 'Let me check.', tool_calls: [{ id: 'call_f2_0', function: { name: 'f', arguments: '{"a":[1,{"b":null}]}' } }] } });
  });

  it('a body without candidates or block reason is a server failure, not an empty success', async () => {
    const r = await rig(json(200, { usageMetadata: { promptTokenCount: 1, totalTokenCount: 1 } }));
    const error = await rejectionOf(r.pipeline.chat(ask));
    expect(error?.attempts?.[0]).toMatchObject({ kind: 'server' });
  });
});
