import { afterEach, describe, expect, it } from 'vitest';
import { openaiCompatibleProvider } from './index.js';
import { attemptError, cassette, closeAll, fixtureChunks, fixtureJson, reframeChunks, replay, streamParts } from './test-support/harness.js';

afterEach(closeAll);

const compat = openaiCompatibleProvider;
const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

interface DeepSeekChunk {
  choices: { delta: { reasoning_content?: string | null; tool_calls?: { function: { arguments: string } }[] } }[];
}

describe('deepseek', () => {
  it('non-stream reasoning answer: reasoning_content, cache usage, fingerprint', async () => {
    const body = fixtureJson<{ choices: { message: { content: string; reasoning_content: string } }[] }>('deepseek-reasoning.json');
    // DeepSeek may send blank lines before the JSON while a request is queued.
    const { pipeline } = await replay(compat, { body: ['\n', '\n', JSON.stringify(body)] }, {}, 'deepseek-reasoner');
    const res = await pipeline.chat(ask);
    expect(res.model).toBe('deepseek-reasoner');
    expect(res.choices[0].message).toEqual({ role: 'assistant', content: body.choices[0].message.content, reasoning_content: body.choices[0].message.reasoning_content });
    expect(res.usage).toEqual({ prompt_tokens: 18, completion_tokens: 345, total_tokens: 363, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 315 } });
    expect(res.providerMetadata).toEqual({ 'openai-compatible': { system_fingerprint: 'fp_eaab8d114b_prod0820_fp8_kvcache', usage: { prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 18 } } });
  });

  it('non-stream tool call: index field dropped, reasoning kept, cached tokens', async () => {
    const { pipeline } = await replay(compat, { body: JSON.stringify(fixtureJson('deepseek-tool-call.json')) });
    const res = await pipeline.chat(ask);
    expect(res.choices[0].finish_reason).toBe('tool_calls');
    expect(res.choices[0].message.content).toBe('');
    expect(res.choices[0].message.reasoning_content).toMatch(/^The user is asking for the weather/);
    expect(res.choices[0].message.tool_calls).toEqual([{ id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', type: 'function', function: { name: 'weather', arguments: '{"location": "San Francisco"}' } }]);
    expect(res.usage?.prompt_tokens_details).toEqual({ cached_tokens: 320 });
  });

  it('stream with `: keep-alive` comments: reasoning then a tool call, usage on the finish chunk', async () => {
    const keepAlive = (i: number) => (i % 10 === 0 ? ': keep-alive\n\n' : '');
    const { pipeline } = await replay(compat, { body: [': keep-alive\n\n', ...reframeChunks('deepseek-tool-call.chunks.txt', keepAlive)] });
    const parts = await streamParts(pipeline);
    const chunks = fixtureChunks<DeepSeekChunk>('deepseek-tool-call.chunks.txt');
    const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');
    const args = chunks.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.function.arguments ?? '').join('');
    expect(parts.map((p) => (p.type === 'reasoning-delta' ? p.text : '')).join('')).toBe(reasoning);
    expect(parts.some((p) => p.type === 'text-delta')).toBe(false);
    const calls = parts.filter((p) => p.type === 'tool-call-delta');
    expect(calls[0]).toMatchObject({ index: 0, id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather' });
    expect(calls.map((p) => (p.type === 'tool-call-delta' ? p.argumentsDelta : '')).join('')).toBe(args);
    expect(JSON.parse(args)).toEqual({ location: expect.any(String) });
    const finish = parts.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 339, completion_tokens: 83, total_tokens: 422, prompt_tokens_details: { cached_tokens: 320 }, completion_tokens_details: { reasoning_tokens: 39 } },
      providerMetadata: { 'openai-compatible': { usage: { prompt_cache_hit_tokens: 320, prompt_cache_miss_tokens: 19 } } },
    });
    expect(parts.filter((p) => p.type === 'usage')).toEqual([]);
  });

  it('insufficient_system_resource mid-stream becomes a retryable overloaded error part', async () => {
    const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: 'd', model: 'deepseek-chat', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const { pipeline } = await replay(compat, { body: [chunk({ role: 'assistant', content: 'Par' }), chunk({}, 'insufficient_system_resource'), 'data: [DONE]\n\n'] });
    const parts = await streamParts(pipeline);
    const last = parts.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && last.error).toMatchObject({ kind: 'overloaded', retryable: true, vendorCode: 'insufficient_system_resource', endpoint: 'up' });
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
  });

  it('a non-stream answer cut by insufficient_system_resource is an overloaded failure, not an answer', async () => {
    const { pipeline } = await replay(compat, { body: JSON.stringify({ id: 'd', object: 'chat.completion', created: 1, model: 'deepseek-chat', choices: [{ index: 0, message: { role: 'assistant', content: 'Par' }, finish_reason: 'insufficient_system_resource' }] }) });
    expect(await attemptError(pipeline.chat(ask))).toMatchObject({ kind: 'overloaded', retryable: true, outcome: 'endpoint-failure' });
  });

  it('a 200 whose body is an error object is classified, not parsed as an empty answer', async () => {
    const { pipeline } = await replay(compat, { body: JSON.stringify({ error: { message: 'Provider returned error', code: 502 } }) });
    expect(await attemptError(pipeline.chat(ask))).toMatchObject({ kind: 'server', status: 502, retryable: true });
  });

  it('402 Insufficient Balance (type and code swapped) is a payment key failure', async () => {
    const { pipeline } = await replay(compat, { status: 402, body: JSON.stringify({ error: { message: 'Insufficient Balance', type: 'unknown_error', param: null, code: 'invalid_request_error' } }) });
    expect(await attemptError(pipeline.chat(ask))).toMatchObject({ kind: 'payment', status: 402, retryable: false, outcome: 'key-failure' });
  });
});

describe('groq', () => {
  it('a whole tool call in one delta, usage on the finish chunk (and in x_groq)', async () => {
    const { pipeline } = await replay(compat, { body: reframeChunks('groq-tool-call.chunks.txt') });
    const parts = await streamParts(pipeline);
    expect(parts.filter((p) => p.type === 'tool-call-delta')).toEqual([{ type: 'tool-call-delta', index: 0, id: 'tk85n1k4m', name: 'weather', argumentsDelta: '{}' }]);
    const finish = parts.at(-1);
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 210, completion_tokens: 15, total_tokens: 225 } });
    expect(finish?.type === 'finish' && finish.providerMetadata?.['openai-compatible'].x_groq).toMatchObject({ id: 'req_01kh52nj5yfcat8hrmvrk2j2hj' });
  });

  it('the recorded 404 model_not_found is a misconfiguration', async () => {
    const rec = cassette('pydantic-ai__test_tool_regular_error.yaml');
    const { pipeline } = await replay(compat, { status: rec.status, headers: rec.headers, body: rec.body });
    const error = await attemptError(pipeline.chat(ask));
    expect(error).toMatchObject({ kind: 'not-found', status: 404, vendorCode: 'model_not_found', outcome: 'misconfigured', retryable: false });
    expect(error.message).toContain('The model `non-existent` does not exist');
  });
});

describe('ollama', () => {
  it('non-stream answers with the `reasoning` field (recorded cassette, both turns)', async () => {
    const first = cassette('pydantic-ai__test_ollama_cloud_tool_output.yaml', 0);
    const { vendor, pipeline } = await replay(compat, { status: first.status, headers: first.headers, body: first.body }, {}, 'gpt-oss:20b');
    const a = await pipeline.chat(ask);
    expect(a).toMatchObject({ id: 'chatcmpl-395', model: 'gpt-oss:20b', system_fingerprint: 'fp_ollama', usage: { prompt_tokens: 134, completion_tokens: 122, total_tokens: 256 } });
    expect(a.choices[0].message.content).toBe('Paris.');
    expect(a.choices[0].message.reasoning_content).toMatch(/^We need to answer question/);
    expect(a.usage?.prompt_tokens_details).toBeUndefined();

    const second = cassette('pydantic-ai__test_ollama_cloud_tool_output.yaml', 1);
    vendor.reply = { status: second.status, headers: second.headers, body: second.body };
    const b = await pipeline.chat(ask);
    expect(b.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { content: '', tool_calls: [{ id: 'call_o2vnpxrw', type: 'function', function: { name: 'final_result', arguments: '{"city":"Paris","country":"France"}' } }] } });
  });

  it('stream: reasoning deltas, a whole tool call without an id, trailing usage chunk', async () => {
    const chunk = (c: unknown) => `data: ${JSON.stringify(c)}\n\n`;
    const base = { id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 9, model: 'qwen3:8b', system_fingerprint: 'fp_ollama' };
    const { pipeline } = await replay(compat, {
      body: [
        chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '', reasoning: 'Think' }, finish_reason: null }] }),
        chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '', tool_calls: [{ index: 0, type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: null }] }),
        chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'tool_calls' }] }),
        chunk({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } }),
        'data: [DONE]\n\n',
      ],
    });
    const res = await (await pipeline.stream(ask)).collect();
    expect(res.choices[0].message.reasoning_content).toBe('Think');
    expect(res.choices[0].message.tool_calls).toEqual([{ id: 'call_chatcmpl-7_0', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }]);
    expect(res.usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
  });
});

describe('openrouter', () => {
  it('an error inside a chunk that also has choices ends the stream with a classified error part', async () => {
    const rec = cassette('pydantic-ai__test_openrouter_stream_error.yaml');
    expect(rec.body).toContain(': OPENROUTER PROCESSING');
    const { pipeline } = await replay(compat, { status: rec.status, headers: rec.headers, body: rec.body });
    const parts = await streamParts(pipeline);
    expect(parts.map((p) => p.type)).toEqual(['response-metadata', 'reasoning-delta', 'reasoning-delta', 'finish', 'usage', 'error']);
    expect(parts[0]).toMatchObject({ id: 'gen-1762179802-UN8pkJI4AGZvryk0kFnb', model: 'minimax/minimax-m2:free', providerMetadata: { 'openai-compatible': { provider: 'Minimax' } } });
    expect(parts[3]).toMatchObject({ finishReason: 'length' });
    expect(parts[4]).toMatchObject({ usage: { prompt_tokens: 43, completion_tokens: 10, completion_tokens_details: { reasoning_tokens: 11 } } });
    const error = parts[5].type === 'error' ? parts[5].error : undefined;
    expect(error).toMatchObject({ kind: 'bad-request', status: 400, retryable: false, endpoint: 'up', provider: 'openai-compatible' });
    expect(error?.message).toContain('Token limit reached');
    await expect((async () => (await pipeline.stream(ask)).collect())()).rejects.toMatchObject({ kind: 'bad-request' });
  });

  it('an `event: error` before any token fails the attempt with a classified error', async () => {
    const { pipeline } = await replay(compat, { body: ['event: error\ndata: {"error":{"message":"Rate limit exceeded","code":429}}\n\n'] });
    expect(await attemptError(pipeline.stream(ask))).toMatchObject({ kind: 'rate-limit', status: 429, retryable: true });
  });
});

describe('vllm', () => {
  it('flat error bodies with an integer code', async () => {
    const { pipeline } = await replay(compat, {
      status: 400,
      body: JSON.stringify({ object: 'error', message: "This model's maximum context length is 2048 tokens. However, you requested 2723 tokens (1699 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 }),
    });
    const error = await attemptError(pipeline.chat(ask));
    expect(error).toMatchObject({ kind: 'context-length', status: 400, vendorCode: 'BadRequestError', retryable: false, outcome: 'request-failure' });
    expect(error.message).toContain('maximum context length is 2048 tokens');
  });

  it('a streamed `data: {"error":…}` with a 500 code is a retryable server error before the commit point', async () => {
    const { pipeline } = await replay(compat, { body: ['data: {"error":{"object":"error","message":"EngineCore died","type":"InternalServerError","code":500}}\n\n'] });
    expect(await attemptError(pipeline.stream(ask))).toMatchObject({ kind: 'server', status: 500, retryable: true });
  });
});

describe('openai-compatible requests', () => {
  it('passes unknown fields and reasoning_content through, sends no auth header without a key, has no default base', async () => {
    const { vendor, pipeline } = await replay(compat, { body: reframeChunks('groq-tool-call.chunks.txt') }, { apiKey: undefined });
    await streamParts(pipeline, {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'x', reasoning_content: 'because', providerMetadata: { gemini: { sig: 'a' } } },
        { role: 'user', content: 'again' },
      ],
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
    });
    const sent = vendor.requests[0];
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.parse(sent.body)).toEqual({
      model: 'upstream-model',
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'x', reasoning_content: 'because' }, { role: 'user', content: 'again' }],
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(compat.defaultBaseUrl).toBeUndefined();
  });
});
