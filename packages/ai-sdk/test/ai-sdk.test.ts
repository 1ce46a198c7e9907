/**
 * The provider driven by the AI SDK's own functions, on three majors: ai@5 (LanguageModelV2),
 * ai@6 (LanguageModelV3) and ai@7 (which runs LanguageModelV3 models as they are; it declares
 * Node 22 but runs these paths on Node 20). The pipeline is real (provider-openai,
 * plugin-retry, undici) against loopback vendors: a primary that refuses connections and a
 * fallback whose answers each test scripts.
 */
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as ai5 from 'ai5';
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';
import { z } from 'zod';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { retry } from '@switchyard/plugin-retry';
import { startLoopback, sseBody, type Loopback } from '../../core/test/support/loopback.js';
import { switchyard } from '../src/index.js';

type Reply = (body: Record<string, unknown>) => { status?: number; json?: unknown; sse?: unknown[]; done?: boolean };
let reply: Reply;
let fallback: Loopback;
let refusing: string;
let pipeline: Pipeline;

beforeAll(async () => {
  fallback = await startLoopback((_req, res, text) => {
    const r = reply(JSON.parse(text) as Record<string, unknown>);
    if (r.sse) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody(r.sse, r.done ?? true));
    } else {
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.json));
    }
  });
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  refusing = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
  await new Promise<void>((r) => server.close(() => r()));
  pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai', baseUrl: refusing, apiKey: 'sk-primary' },
      { name: 'fallback', provider: 'openai', baseUrl: fallback.url, apiKey: 'sk-fallback' },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'gpt-4o-mini' }, { endpoint: 'fallback', model: 'gpt-4o-mini', capabilities: ['tools', 'json'] }] },
    plugins: [...openai, retry({ maxAttemptsPerCandidate: 1 })],
  });
});
afterAll(async () => {
  await pipeline.close();
  await fallback.close();
});
beforeEach(() => {
  fallback.requests.length = 0;
});

const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
const textAnswer = (text: string) => ({ json: { id: 'cmpl-1', object: 'chat.completion', created: 1_700_000_000, model: 'gpt-4o-mini-2024', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage } });
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini-2024', choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
const weather = { description: 'The weather in a city', inputSchema: z.object({ city: z.string() }) };

const lastBody = () => JSON.parse(fallback.requests.at(-1)!.body) as Record<string, any>;

describe.each([
  // One body of tests for every major: ai@5's and ai@7's functions are called through ai@6's signatures,
  // which are a superset for everything used here (the typed check is the test below).
  { sdk: 'ai@5', lib: ai5 as unknown as typeof ai6, model: () => switchyard(pipeline, { specificationVersion: 'v2' }).languageModel('chat') as never },
  { sdk: 'ai@6', lib: ai6, model: () => switchyard(pipeline).languageModel('chat') },
  { sdk: 'ai@7', lib: ai7 as unknown as typeof ai6, model: () => switchyard(pipeline).languageModel('chat') },
])('$sdk', ({ lib, model }) => {
  it('generateText fails over to the fallback and reports text, usage, finish reason and who answered', async () => {
    reply = () => textAnswer('Hello from the fallback');
    const result = await lib.generateText({ model: model(), system: 'Be brief.', prompt: 'Hi!', maxOutputTokens: 64, temperature: 0.2, maxRetries: 0 });
    expect(result.text).toBe('Hello from the fallback');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBe(11);
    expect(result.usage.outputTokens).toBe(7);
    expect(result.usage.totalTokens).toBe(18);
    expect(result.providerMetadata?.switchyard).toMatchObject({ endpoint: 'fallback', attempts: 2 });
    expect(result.response.modelId).toBe('gpt-4o-mini-2024');
    const body = lastBody();
    expect(body.messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi!' }]);
    expect(body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 64, temperature: 0.2 });
  });

  it('streamText streams the text with finish reason and usage', async () => {
    reply = () => ({ sse: [chunk({ role: 'assistant', content: 'One, ' }), chunk({ content: 'two, ' }), chunk({ content: 'three.' }), chunk({}, 'stop'), { id: 'c1', object: 'chat.completion.chunk', choices: [], usage }] });
    const result = lib.streamText({ model: model(), prompt: 'Count to three.', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.join('')).toBe('One, two, three.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).inputTokens).toBe(11);
    expect((await result.usage).outputTokens).toBe(7);
    expect((await result.providerMetadata)?.switchyard).toMatchObject({ endpoint: 'fallback' });
  });

  it('generateText returns tool calls with parsed input and sends the tool definitions', async () => {
    reply = () => ({ json: { id: 'cmpl-2', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] }, finish_reason: 'tool_calls' }], usage } });
    const result = await lib.generateText({ model: model(), prompt: 'Weather in Oslo?', tools: { weather: lib.tool(weather) }, toolChoice: 'required', maxRetries: 0 });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolCallId: 'call_1', toolName: 'weather', input: { city: 'Oslo' } });
    const body = lastBody();
    expect(body.tool_choice).toBe('required');
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: expect.objectContaining({ type: 'object', properties: { city: { type: 'string' } } }) } }]);
  });

  it('runs a tool and sends its result back as a tool message on the next step', async () => {
    let step = 0;
    reply = () => (++step === 1 ? { json: { id: 'a', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] }, finish_reason: 'tool_calls' }], usage } } : textAnswer('It is sunny in Oslo.'));
    const stopWhen = lib.stepCountIs(3);
    const result = await lib.generateText({ model: model(), prompt: 'Weather in Oslo?', tools: { weather: lib.tool({ ...weather, execute: async ({ city }: { city: string }) => ({ city, sky: 'sunny' }) }) }, stopWhen, maxRetries: 0 });
    expect(result.text).toBe('It is sunny in Oslo.');
    const messages = lastBody().messages as Record<string, unknown>[];
    expect(messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] });
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_9', content: '{"city":"Oslo","sky":"sunny"}' });
  });

  it('streamText streams tool input and ends with the tool call', async () => {
    reply = () => ({ sse: [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_7', type: 'function', function: { name: 'weather', arguments: '' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '"Bergen"}' } }] }), chunk({}, 'tool_calls', { usage })] });
    const result = lib.streamText({ model: model(), prompt: 'Weather in Bergen?', tools: { weather: lib.tool(weather) }, maxRetries: 0 });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toEqual(expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'finish']));
    expect(types.indexOf('tool-call')).toBeGreaterThan(types.indexOf('tool-input-end'));
    expect(await result.toolCalls).toMatchObject([{ toolCallId: 'call_7', toolName: 'weather', input: { city: 'Bergen' } }]);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('a request every candidate fails rejects with an APICallError that the AI SDK does not retry', async () => {
    reply = () => ({ status: 503, json: { error: { message: 'overloaded right now', type: 'server_error' } } });
    const error = await lib.generateText({ model: model(), prompt: 'Hi', maxRetries: 2 }).catch((e: unknown) => e);
    expect(ai6.APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ isRetryable: false, statusCode: 503, data: { kind: 'all-candidates-failed', attempts: [{ kind: 'network' }, { kind: 'overloaded', status: 503, endpoint: 'fallback' }] } });
    expect((error as Error).message).toContain('overloaded right now');
    // One attempt on the fallback: Switchyard decided, the AI SDK's retries did not multiply it.
    expect(fallback.requests).toHaveLength(1);
  });

  it('a stream cut after the first token reaches streamText as an error, not a silent success', async () => {
    reply = () => ({ sse: [chunk({ role: 'assistant', content: 'Half an ans' })], done: false });
    const errors: unknown[] = [];
    const result = lib.streamText({ model: model(), prompt: 'Hi', maxRetries: 0, onError: ({ error }: { error: unknown }) => void errors.push(error) });
    const parts: { type: string }[] = [];
    for await (const part of result.fullStream) parts.push(part);
    expect(parts.filter((p) => p.type === 'text-delta').length).toBe(1);
    const errorPart = parts.find((p) => p.type === 'error') as { error: unknown } | undefined;
    expect(errorPart).toBeDefined();
    expect(ai6.APICallError.isInstance(errorPart!.error)).toBe(true);
    expect((errorPart!.error as { data: { kind: string } }).data.kind).toBe('stream-cut');
    expect(errors).toHaveLength(1);
    expect(await result.finishReason).toBe('error');
  });
});

describe('switchyard(pipeline)', () => {
  it('its models are what each AI SDK major accepts as a model, without casts', () => {
    const forAi5: Parameters<typeof ai5.generateText>[0]['model'] = switchyard(pipeline, { specificationVersion: 'v2' }).languageModel('chat');
    const forAi6: Parameters<typeof ai6.streamText>[0]['model'] = switchyard(pipeline).languageModel('chat');
    const forAi7: Parameters<typeof ai7.streamText>[0]['model'] = switchyard(pipeline).languageModel('chat');
    expect([typeof forAi5, typeof forAi6, typeof forAi7]).toEqual(['object', 'object', 'object']);
  });


  it('refuses a model the pipeline does not serve, naming the ones it does', () => {
    expect(() => switchyard(pipeline).languageModel('gpt-5')).toThrow(/no model "gpt-5" \(it has: chat\)/);
    expect(ai6.NoSuchModelError.isInstance((() => { try { switchyard(pipeline)('nope'); } catch (e) { return e; } })())).toBe(true);
  });

  it('models declare the specification their AI SDK major runs', () => {
    expect(switchyard(pipeline).languageModel('chat').specificationVersion).toBe('v3');
    expect(switchyard(pipeline, { specificationVersion: 'v2' }).chat('chat').specificationVersion).toBe('v2');
  });
});
