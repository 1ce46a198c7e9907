import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '@switchyard/core';
import { openaiProvider } from './index.js';
import { cassette, closeAll, fixtureChunks, fixtureJson, reframeChunks, replay, streamParts, type Reply, type Vendor } from './test-support/harness.js';

let vendor: Vendor;
let pipeline: Pipeline;
afterEach(closeAll);

async function setup(reply: Reply) {
  ({ vendor, pipeline } = await replay(openaiProvider, reply, {}, 'gpt-4.1-nano'));
}

interface Chunk {
  choices: { delta: { content?: string } }[];
  usage: unknown;
}

describe('openai: recorded answers through the pipeline', () => {
  it('non-stream text (openai-text.json) keeps the vendor model, usage details and extras', async () => {
    const body = fixtureJson<{ choices: { message: { content: string } }[] }>('openai-text.json');
    await setup({ body: JSON.stringify(body) });
    const res = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'invent a holiday' }] });
    expect(res).toMatchObject({
      id: 'chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU',
      object: 'chat.completion',
      created: 1770933883,
      model: 'gpt-4.1-nano-2025-04-14',
      system_fingerprint: 'fp_de604bd877',
      usage: { prompt_tokens: 16, completion_tokens: 363, total_tokens: 379, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
      providerMetadata: { openai: { service_tier: 'default', system_fingerprint: 'fp_de604bd877' } },
      switchyard: { endpoint: 'up', provider: 'openai', attempts: 1 },
    });
    expect(res.choices).toEqual([{ index: 0, message: { role: 'assistant', content: body.choices[0].message.content }, finish_reason: 'stop' }]);
  });

  it('stream text (openai-text.chunks.txt): every delta, finish, then the include_usage chunk as a usage part', async () => {
    await setup({ body: reframeChunks('openai-text.chunks.txt') });
    const parts = await streamParts(pipeline);
    const chunks = fixtureChunks<Chunk>('openai-text.chunks.txt');
    const expectedText = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(parts[0]).toEqual({
      type: 'response-metadata',
      id: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0',
      model: 'gpt-4.1-nano-2025-04-14',
      created: 1770933892,
      providerMetadata: { openai: { service_tier: 'default', system_fingerprint: 'fp_de604bd877' } },
    });
    const text = parts.filter((p) => p.type === 'text-delta');
    // The first chunk's empty content is not a token.
    expect(text).toHaveLength(chunks.filter((c) => c.choices[0]?.delta.content).length);
    expect(text.map((p) => (p.type === 'text-delta' ? p.text : '')).join('')).toBe(expectedText);
    expect(parts.slice(-2)).toEqual([
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { prompt_tokens: 16, completion_tokens: 300, total_tokens: 316, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } } },
    ]);
  });

  it('collect() of the same stream equals the text and usage', async () => {
    await setup({ body: reframeChunks('openai-text.chunks.txt') });
    const stream = await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    const res = await stream.collect();
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.usage?.completion_tokens).toBe(300);
    expect(res.choices[0].message.content).toMatch(/^\*\*Holiday Name/);
  });

  it('stream tool call (raw cassette, byte-exact framing): id+name first, argument fragments by index, usage chunk', async () => {
    const rec = cassette('pydantic-ai__test_run_stream_sync_streams_real_model.yaml', 0);
    await setup({ status: rec.status, headers: rec.headers, body: rec.body });
    const parts = await streamParts(pipeline);
    const tool = parts.filter((p) => p.type === 'tool-call-delta');
    expect(tool[0]).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', argumentsDelta: '' });
    expect(tool.slice(1).every((p) => p.type === 'tool-call-delta' && p.id === undefined && p.name === undefined && p.index === 0)).toBe(true);
    expect(tool.map((p) => (p.type === 'tool-call-delta' ? p.argumentsDelta : '')).join('')).toBe('{"country":"UK"}');
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([]);
    expect(parts.at(-2)).toEqual({ type: 'finish', finishReason: 'tool_calls' });
    expect(parts.at(-1)).toMatchObject({ type: 'usage', usage: { prompt_tokens: 53, completion_tokens: 15, total_tokens: 68 } });
  });

  it('stream tool round trip (cassette turn 2): the answer after a tool message', async () => {
    const rec = cassette('pydantic-ai__test_run_stream_sync_streams_real_model.yaml', 1);
    await setup({ status: rec.status, headers: rec.headers, body: rec.body });
    const request = rec.requestBody as { messages: Record<string, unknown>[]; tools: unknown[]; tool_choice: string };
    const stream = await pipeline.stream({ model: 'chat', messages: request.messages as never, tools: request.tools as never, tool_choice: 'auto' });
    const res = await stream.collect();
    expect(res.choices[0].message.content).toBe('The capital of the UK is London.');
    expect(res.model).toBe('gpt-4o-mini-2024-07-18');
    expect(res.usage).toMatchObject({ prompt_tokens: 78, completion_tokens: 9, total_tokens: 87 });
    // What went upstream is what the recorded client sent (our model name, include_usage added).
    expect(JSON.parse(vendor.requests[0].body)).toEqual({ ...request, model: 'gpt-4.1-nano' });
  });

  it('non-stream tool call: tool_calls without the vendor index, finish tool_calls', async () => {
    await setup({
      body: JSON.stringify({
        id: 'chatcmpl-t', object: 'chat.completion', created: 5, model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_capital', arguments: '{"country":"UK"}' } }] }, logprobs: null, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
      }),
    });
    const res = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'capital?' }] });
    expect(res.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_capital', arguments: '{"country":"UK"}' } }] },
      finish_reason: 'tool_calls',
    });
    expect(res.usage).toEqual({ prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 });
  });

  it('parallel tool calls stream to separate indexes', async () => {
    const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    await setup({
      body: [
        chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const res = await (await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'go' }] })).collect();
    expect(res.choices[0].message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
      { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
    ]);
    expect(res.choices[0].message.content).toBeNull();
  });

  it('embeddings and the /models probe go to the right paths with the bearer key', async () => {
    await setup({ body: JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } }) });
    const res = await pipeline.embeddings({ model: 'chat', input: 'hello', dimensions: 2, switchyard: { tags: { a: 'b' } } });
    expect(res).toMatchObject({ object: 'list', model: 'text-embedding-3-small', data: [{ embedding: [0.1, 0.2] }], usage: { prompt_tokens: 2 } });
    expect(vendor.requests[0].path).toBe('/v1/embeddings');
    expect(JSON.parse(vendor.requests[0].body)).toEqual({ model: 'gpt-4.1-nano', input: 'hello', dimensions: 2 });
    const candidate = pipeline.candidatesFor('chat')[0];
    expect(openaiProvider.probe?.(candidate)).toEqual({ method: 'GET', path: '/models', headers: { accept: 'application/json', authorization: `Bearer ${candidate.apiKey}` } });
  });

  it('defaults to api.openai.com', () => {
    expect(openaiProvider.defaultBaseUrl).toBe('https://api.openai.com/v1');
  });
});
