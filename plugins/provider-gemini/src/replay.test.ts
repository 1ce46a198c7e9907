/** Every recorded Gemini fixture replayed through the real pipeline, undici and a loopback server. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest, StreamPart } from '@switchyard/core';
import { cassetteBodies, chunkLines, fixture, frameSse, geminiRig, json, MODEL, sse, type GeminiRig } from '../test/harness.js';

const rigs: GeminiRig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.close()));
});
async function rig(...args: Parameters<typeof geminiRig>) {
  const r = await geminiRig(...args);
  rigs.push(r);
  return r;
}

const ask: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'How many r in strawberry?' }] };
const lastSignature = (name: string) => {
  const lines = chunkLines(name).map((l) => JSON.parse(l));
  return lines.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).filter((p: { thoughtSignature?: string }) => p.thoughtSignature).map((p: { thoughtSignature: string }) => p.thoughtSignature);
};

async function streamParts(r: GeminiRig, request: ChatRequest = ask): Promise<StreamPart[]> {
  const stream = await r.pipeline.stream(request);
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('non-streaming fixtures', () => {
  it('google-text.json: text, thinking tokens counted as completion, signature kept', async () => {
    const r = await rig(json(200, fixture('google-text.json')));
    const res = await r.pipeline.chat(ask);
    expect(res.id).toBe('Un6LacrVMcjUxs0PmJfWoQc');
    expect(res.model).toBe('gemini-3-pro-preview');
    expect(res.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y." },
    });
    expect(res.choices[0].message.tool_calls).toBeUndefined();
    expect(res.usage).toEqual({ prompt_tokens: 9, completion_tokens: 28 + 244, total_tokens: 281, completion_tokens_details: { reasoning_tokens: 244 } });
    expect(res.choices[0].message.providerMetadata).toEqual({ gemini: { thoughtSignature: 'EtoFCtcFAb4+9vtfe4MXRxQjw48U1WKrR/7lYsgFkVi/bepqsSPjY0VU7HEzkeCBIfy1fu5t9aUZ4IZ65aWagqbBrV45fc97olcg' } });
    expect(res.switchyard).toMatchObject({ endpoint: 'google', provider: 'gemini', attempts: 1 });
  });

  for (const name of ['google-tool-call.json', 'google-tool-call-gemini3.json']) {
    it(`${name}: functionCall with finishReason STOP → tool_calls with a stable id`, async () => {
      const body = JSON.parse(fixture(name));
      const part = body.candidates[0].content.parts[0];
      const r = await rig(json(200, body));
      const res = await r.pipeline.chat({ ...ask, tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }] });
      const id = `call_${body.responseId}_0`;
      expect(res.choices[0].finish_reason).toBe('tool_calls');
      expect(res.choices[0].message.content).toBeNull();
      expect(res.choices[0].message.tool_calls).toEqual([{ id, type: 'function', function: { name: 'weather', arguments: '{"location":"San Francisco"}' } }]);
      expect(res.choices[0].message.providerMetadata).toEqual({ gemini: { thoughtSignature: part.thoughtSignature, toolCallSignatures: { [id]: part.thoughtSignature } } });
      expect(res.providerMetadata?.gemini).toMatchObject({ finishReason: 'STOP', finishMessage: 'Model generated function call(s).' });
      const meta = body.usageMetadata;
      expect(res.usage).toEqual({ prompt_tokens: 29, completion_tokens: 15 + meta.thoughtsTokenCount, total_tokens: meta.totalTokenCount, completion_tokens_details: { reasoning_tokens: meta.thoughtsTokenCount } });
      // Same body, same ids: a replay or cache hit matches the caller's history.
      const again = await r.pipeline.chat(ask);
      expect(again.choices[0].message.tool_calls?.[0].id).toBe(id);
    });
  }
});

describe('streaming fixtures (re-framed *.chunks.txt)', () => {
  it('google-text.chunks.txt with CRLF framing: text, growing usage, final empty signed part', async () => {
    const r = await rig(sse(frameSse(chunkLines('google-text.chunks.txt'), '\r\n\r\n')));
    const parts = await streamParts(r);
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text)).toEqual(['There are **3**', ' "r"s in strawberry.\n\nst**r**awbe**rr**y']);
    expect(parts[0]).toMatchObject({ type: 'response-metadata', id: 'bH6LaZW8Fp_3nsEPqtaSwQ4', model: 'gemini-3-pro-preview' });
    const finish = parts.at(-1);
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop', rawFinishReason: 'STOP', usage: { prompt_tokens: 9, completion_tokens: 23 + 185, total_tokens: 217, completion_tokens_details: { reasoning_tokens: 185 } } });
    expect(finish).toMatchObject({ providerMetadata: { gemini: { thoughtSignature: lastSignature('google-text.chunks.txt')[0] } } });
  });

  it('google-text.chunks.txt with LF framing collects to the same answer', async () => {
    const r = await rig(sse(frameSse(chunkLines('google-text.chunks.txt'), '\n\n')));
    const res = await (await r.pipeline.stream(ask)).collect();
    expect(res.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y' } });
    expect(res.usage?.total_tokens).toBe(217);
    expect(res.model).toBe('gemini-3-pro-preview');
  });

  it('google-reasoning.chunks.txt: thoughtsTokenCount becomes reasoning_tokens and completion', async () => {
    const r = await rig(sse(frameSse(chunkLines('google-reasoning.chunks.txt'))));
    const res = await (await r.pipeline.stream(ask)).collect();
    expect(res.choices[0].message.content).toBe('There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.');
    expect(res.usage).toEqual({ prompt_tokens: 9, completion_tokens: 29 + 256, total_tokens: 294, completion_tokens_details: { reasoning_tokens: 256 } });
    expect(res.providerMetadata?.gemini).toMatchObject({ thoughtSignature: lastSignature('google-reasoning.chunks.txt')[0], finishReason: 'STOP' });
  });

  it('google-tool-call.chunks.txt: a whole functionCall in one chunk, STOP → tool_calls', async () => {
    const r = await rig(sse(frameSse(chunkLines('google-tool-call.chunks.txt'))));
    const parts = await streamParts(r);
    const calls = parts.filter((p) => p.type === 'tool-call-delta');
    const signature = lastSignature('google-tool-call.chunks.txt')[0];
    expect(calls).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call_b36LacjwM668nsEP2tbsgQQ_0', name: 'weather', argumentsDelta: '{"location":"San Francisco"}', providerMetadata: { gemini: { thoughtSignature: signature } } },
    ]);
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 29, completion_tokens: 15 + 45, total_tokens: 89 } });
    expect(parts.at(-1)).toMatchObject({ providerMetadata: { gemini: { thoughtSignature: signature, toolCallSignatures: { call_b36LacjwM668nsEP2tbsgQQ_0: signature } } } });
  });

  it('google-stream-no-args-tool-call.chunks.txt: thought part → reasoning, no-args call → "{}", partialArgs calls assembled', async () => {
    const r = await rig(sse(frameSse(chunkLines('google-stream-no-args-tool-call.chunks.txt'))));
    const res = await (await r.pipeline.stream(ask)).collect();
    const message = res.choices[0].message;
    expect(message.reasoning_content).toMatch(/^\*\*Processing User Requests\*\*\n\nI've started by understanding/);
    expect(message.content).toBeNull();
    expect(message.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['call__vr4aYiWEJnYodAPkujX0QM_0', 'read_theme', '{}'],
      ['call__vr4aYiWEJnYodAPkujX0QM_1', 'read_screen', '{"id":"A"}'],
      ['call__vr4aYiWEJnYodAPkujX0QM_2', 'read_screen', '{"id":"B"}'],
      ['call__vr4aYiWEJnYodAPkujX0QM_3', 'read_screen', '{"id":"C"}'],
    ]);
    expect(res.choices[0].finish_reason).toBe('tool_calls');
    expect(res.usage).toEqual({ prompt_tokens: 249, completion_tokens: 58 + 183, total_tokens: 490, completion_tokens_details: { reasoning_tokens: 183 } });
    expect(res.model).toBe('gemini-3-flash-preview');
    expect(Object.keys(res.providerMetadata?.gemini?.toolCallSignatures as object)).toEqual(['call__vr4aYiWEJnYodAPkujX0QM_0']);
  });

  it('google-stream-tool-call-arguments.chunks.txt: Vertex partialArgs → one JSON argument string per call', async () => {
    const r = await rig(sse(frameSse(chunkLines('google-stream-tool-call-arguments.chunks.txt'))));
    const parts = await streamParts(r);
    const deltas = parts.filter((p) => p.type === 'tool-call-delta').map((p) => ({ ...p, providerMetadata: undefined }));
    expect(deltas).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call_dqHOab6xGLzWodAPkPuViA4_0', name: 'getWeather', argumentsDelta: '', providerMetadata: undefined },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"location":"Boston"}', providerMetadata: undefined },
      { type: 'tool-call-delta', index: 1, id: 'call_dqHOab6xGLzWodAPkPuViA4_1', name: 'getWeather', argumentsDelta: '', providerMetadata: undefined },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"location":"San Francisco"}', providerMetadata: undefined },
    ]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 26, completion_tokens: 23 + 132, total_tokens: 181 } });
  });
});

describe('raw SSE cassettes (byte-exact CRLF framing)', () => {
  it('pydantic-ai test_google_model_stream: system prompt, temperature 0, CRLF events, no [DONE]', async () => {
    const [body] = cassetteBodies('pydantic-ai__test_google_model_stream.yaml');
    expect(body.split('\r\n\r\n').filter(Boolean)).toHaveLength(3);
    const r = await rig(sse(body));
    const res = await (await r.pipeline.stream({ model: 'chat', temperature: 0, messages: [{ role: 'system', content: 'You are a helpful chatbot.' }, { role: 'user', content: 'What is the capital of France?' }] })).collect();
    expect(res.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'The capital of France is Paris.\n' } });
    expect(res.usage).toEqual({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
    expect(res.id).toBe('w1peaMz6INOvnvgPgYfPiQY');
    const sent = r.server.requests[0];
    expect(sent.path).toBe(`/v1/models/${MODEL}:streamGenerateContent?alt=sse`);
    expect(JSON.parse(sent.body)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'What is the capital of France?' }] }],
      systemInstruction: { parts: [{ text: 'You are a helpful chatbot.' }] },
      generationConfig: { temperature: 0 },
    });
  });

  it('pydantic-ai streaming tool call with thoughtSignature: turn 2 echoes the call, its signature and a functionResponse', async () => {
    const [turn1, turn2] = cassetteBodies('pydantic-ai__test_google_streaming_tool_call_thought_signature.yaml');
    const r = await rig([sse(turn1), sse(turn2)]);
    const tools = [{ type: 'function' as const, function: { name: 'get_country', description: '', parameters: { type: 'object', properties: {}, additionalProperties: false } } }];
    const question = { role: 'user' as const, content: 'What is the capital of the user country? Call the tool' };
    const first = await (await r.pipeline.stream({ model: 'chat', tools, messages: [question] })).collect();
    const call = first.choices[0].message.tool_calls?.[0];
    expect(call).toEqual({ id: 'call_QUVVadTSNJ6_qtsPvN7J8Q0_0', type: 'function', function: { name: 'get_country', arguments: '{}' } });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.usage).toEqual({ prompt_tokens: 29, completion_tokens: 10 + 202, total_tokens: 241, completion_tokens_details: { reasoning_tokens: 202 } });

    // The caller appends the answer to its history the OpenAI way, carrying providerMetadata along.
    const history = [question, { role: 'assistant' as const, content: null, tool_calls: [call!], providerMetadata: first.providerMetadata }, { role: 'tool' as const, tool_call_id: call!.id, content: '{"return_value":"Mexico"}' }];
    const second = await (await r.pipeline.stream({ model: 'chat', tools, messages: history })).collect();
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'The capital of Mexico is Mexico City.' } });
    expect(second.usage).toEqual({ prompt_tokens: 257, completion_tokens: 8, total_tokens: 265 });

    const recorded = /thoughtSignature: (\S+)/.exec(fixture('pydantic-ai__test_google_streaming_tool_call_thought_signature.yaml'))![1];
    const sent = JSON.parse(r.server.requests[1].body);
    expect(sent.tools).toEqual([{ functionDeclarations: [{ name: 'get_country' }] }]);
    expect(sent.contents).toHaveLength(3);
    expect(sent.contents[0]).toEqual({ role: 'user', parts: [{ text: question.content }] });
    expect(sent.contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'get_country', args: {} }, thoughtSignature: expect.any(String) }] });
    // pydantic-ai re-encoded the signature as URL-safe base64; the bytes are what must match.
    expect(Buffer.from(sent.contents[1].parts[0].thoughtSignature, 'base64').equals(Buffer.from(recorded, 'base64url'))).toBe(true);
    expect(sent.contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_country', response: { return_value: 'Mexico' } } }] });
  });
});
