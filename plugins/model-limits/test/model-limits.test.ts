import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type ChatMessage, type ChatRequest, type DeploymentConfig, type Pipeline, type Plugin } from '@switchyard/core';
import { openaiProvider } from '../../provider-openai/src/index.js';
import { anthropicProvider } from '../../provider-anthropic/src/index.js';
import { router } from '../../router/src/index.js';
import { completion, sseBody, startLoopback, textChunks, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { modelLimits, type ModelLimitsOptionsInput } from '../src/index.js';

let servers: Loopback[] = [];
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  pipeline = undefined;
});

async function openaiVendor(name: string): Promise<Loopback> {
  const server = await startLoopback((_req, res, body) => {
    const { messages, stream } = JSON.parse(body) as { messages: unknown[]; stream?: boolean };
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody(textChunks([`${name} read ${messages.length} messages`])));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(`${name} read ${messages.length} messages`, name)));
  });
  servers.push(server);
  return server;
}

/** Endpoints `a`, `b` (OpenAI) and `claude` (Anthropic) behind model `chat` with the given deployments. */
async function setup(deployments: (urls: Record<string, string>) => DeploymentConfig[], options: ModelLimitsOptionsInput = {}, plugins: Plugin[] = []) {
  const [a, b, claude] = await Promise.all([openaiVendor('a'), openaiVendor('b'), openaiVendor('claude')]);
  pipeline = createPipeline({
    endpoints: [
      { name: 'a', provider: 'openai', baseUrl: a.url, apiKey: 'sk-a-0123456789abcdef' },
      { name: 'b', provider: 'openai', baseUrl: b.url, apiKey: 'sk-b-0123456789abcdef' },
      { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-0123456789abcdef' },
    ],
    models: { chat: deployments({ a: a.url, b: b.url }) },
    providers: [openaiProvider, anthropicProvider],
    plugins: [modelLimits(options), ...plugins],
  });
  return { pipeline, a, b, claude };
}

const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('parameter checks before sending', () => {
  it('fails with a 400 naming the field when no deployment accepts the value, without a vendor call', async () => {
    const { pipeline: p, a, b } = await setup(() => [{ endpoint: 'a', model: 'gpt-4o', limits: { maxOutputTokens: 16384 } }, { endpoint: 'b', model: 'gpt-4o-mini', limits: { maxOutputTokens: 8192 } }]);
    const err = await p.chat(ask({ max_tokens: 20000 })).catch((e) => e);
    expect(err).toMatchObject({ kind: 'invalid-request', code: 'SWITCHYARD_ERR_PARAMETER_LIMIT', status: 400, path: 'max_tokens' });
    expect(err.message).toBe('max_tokens: 20000 is above the output limit of 16384; no deployment of model "chat" accepts it (a/gpt-4o: max_tokens 20000 is above the output limit of 16384; b/gpt-4o-mini: max_tokens 20000 is above the output limit of 8192)');
    // The OpenAI presets: temperature in [0, 2], at most 4 stop sequences.
    await expect(p.chat(ask({ temperature: 2.5 }))).rejects.toMatchObject({ path: 'temperature', message: expect.stringContaining('2.5 is outside [0, 2]') });
    await expect(p.chat(ask({ stop: ['a', 'b', 'c', 'd', 'e'] }))).rejects.toMatchObject({ path: 'stop', message: expect.stringContaining('5 stop sequences, at most 4 accepted') });
    await expect(p.chat(ask({ max_completion_tokens: 99999 }))).rejects.toMatchObject({ path: 'max_completion_tokens' });
    expect(a.requests.length + b.requests.length).toBe(0);
  });

  it('skips only the deployments that refuse it: the others answer', async () => {
    const { pipeline: p, a, b } = await setup(() => [{ endpoint: 'a', model: 'gpt-4o-mini', limits: { maxOutputTokens: 4096 } }, { endpoint: 'b', model: 'gpt-4o', limits: { maxOutputTokens: 16384 } }]);
    const answer = await p.chat(ask({ max_tokens: 10000 }));
    expect(answer.switchyard).toMatchObject({ deployment: 'b/gpt-4o', attempts: 1 });
    expect(a.requests).toHaveLength(0);
    expect(b.requests).toHaveLength(1);
    // Within every limit: the primary answers as usual.
    expect((await p.chat(ask({ max_tokens: 1000 }))).switchyard.deployment).toBe('a/gpt-4o-mini');
  });

  it('uses provider presets (Anthropic: temperature at most 1), overridable per provider and per deployment', async () => {
    const { pipeline: p, claude } = await setup(() => [{ endpoint: 'claude', model: 'claude-sonnet-4-5' }, { endpoint: 'a', model: 'gpt-4o' }]);
    expect((await p.chat(ask({ temperature: 1.5 }))).switchyard.deployment).toBe('a/gpt-4o');
    expect(claude.requests).toHaveLength(0);
    await pipeline!.close();
    await Promise.all(servers.map((s) => s.close()));
    servers = [];

    const overridden = await setup(() => [{ endpoint: 'a', model: 'gpt-4o', limits: { temperature: [0, 3] } }, { endpoint: 'b', model: 'gpt-4o-mini' }], { providers: { openai: { maxStop: 8 } } });
    expect((await overridden.pipeline.chat(ask({ temperature: 2.5 }))).switchyard.deployment).toBe('a/gpt-4o');
    expect((await overridden.pipeline.chat(ask({ stop: ['1', '2', '3', '4', '5', '6'] }))).switchyard.deployment).toBe('a/gpt-4o');
  });

  it('is off with checkParameters: false, and presets are off with presets: false', async () => {
    const off = await setup(() => [{ endpoint: 'a', model: 'gpt-4o', limits: { maxOutputTokens: 10 } }], { checkParameters: false });
    expect((await off.pipeline.chat(ask({ max_tokens: 100, temperature: 2.5 }))).switchyard.deployment).toBe('a/gpt-4o');
    await pipeline!.close();
    const noPresets = await setup(() => [{ endpoint: 'a', model: 'gpt-4o', limits: { maxOutputTokens: 10 } }], { presets: false });
    expect((await noPresets.pipeline.chat(ask({ temperature: 2.5 }))).switchyard.deployment).toBe('a/gpt-4o');
    await expect(noPresets.pipeline.chat(ask({ max_tokens: 100 }))).rejects.toMatchObject({ path: 'max_tokens' });
  });

  it('checks enumerated values from the per-model table before sending (issue 38: "type must be in [enabled, disabled, auto]")', async () => {
    const { pipeline: p, a, b } = await setup(() => [
      { endpoint: 'a', model: 'glm-4.6', limits: { values: { 'thinking.type': ['enabled', 'disabled', 'auto'] } } },
      { endpoint: 'b', model: 'gpt-4o', limits: { values: { 'thinking.type': ['enabled', 'disabled'] } } },
    ]);
    const err = await p.chat(ask({ thinking: { type: 'always' } })).catch((e) => e);
    expect(err).toMatchObject({ kind: 'invalid-request', code: 'SWITCHYARD_ERR_PARAMETER_LIMIT', status: 400, path: 'thinking.type' });
    expect(err.message).toContain('thinking.type: "always" is not one of [enabled, disabled, auto]');
    expect(a.requests.length + b.requests.length).toBe(0);
    // Only the deployment that accepts `auto` is tried; the preset's response formats still apply beside the deployment's own table.
    expect((await p.chat(ask({ thinking: { type: 'auto' } }))).switchyard.deployment).toBe('a/glm-4.6');
    await expect(p.chat(ask({ response_format: { type: 'yaml' } as never }))).rejects.toMatchObject({ path: 'response_format.type', message: expect.stringContaining('"yaml" is not one of [text, json_object, json_schema]') });
    expect(() => createPipeline({ endpoints: [{ name: 'a', provider: 'openai' }], models: { chat: [{ endpoint: 'a', model: 'm', limits: { values: { 'thinking type': ['x'] } } }] }, providers: [openaiProvider] })).toThrow(/limits\.values\.thinking type: Invalid key/);
  });

  it('refuses bad limits in the config with the path', () => {
    expect(() => createPipeline({ endpoints: [{ name: 'a', provider: 'openai' }], models: { chat: [{ endpoint: 'a', model: 'm', limits: { temperature: [2, 0] } as never }] }, providers: [openaiProvider] })).toThrow(/models\.chat\[0\]\.limits\.temperature: expected \[min, max\]/);
    expect(() => modelLimits({ providers: { openai: { maxStop: -1 } } })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS' }));
  });
});

/** A long conversation: the system prompt, `turns` exchanges of about 100 tokens each, the question. */
function longConversation(turns: number): ChatRequest {
  const messages: ChatMessage[] = [{ role: 'system', content: 'Be brief.' }];
  for (let i = 0; i < turns; i++) messages.push({ role: 'user', content: `question ${i} ${'lorem '.repeat(60)}` }, { role: 'assistant', content: `answer ${i} ${'ipsum '.repeat(60)}` });
  messages.push({ role: 'user', content: 'So what now?' });
  return { model: 'chat', messages };
}

describe('truncation to the context window', () => {
  const deployments = () => [{ endpoint: 'a', model: 'small', contextWindow: 2_000 }, { endpoint: 'b', model: 'large', contextWindow: 200_000, priority: 5 }];

  it('shortens the prompt for a small window, marks the answer, and leaves other deployments the whole prompt', async () => {
    const { pipeline: p, a, b } = await setup(deployments, { truncate: true, reserveOutputTokens: 256 }, [router()]);
    const request = longConversation(20);
    const answer = await p.chat(request);
    expect(answer.switchyard.deployment).toBe('a/small');
    const sent = JSON.parse(a.requests[0]!.body) as { messages: { role: string; content: string }[] };
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'So what now?' });
    expect(sent.messages[1]!.role).toBe('user');
    expect(sent.messages[1]!.content).toMatch(/^question 1\d /);
    const truncated = answer.switchyard.truncated!;
    expect(truncated).toMatchObject({ contextWindow: 2_000, droppedMessages: request.messages.length - sent.messages.length });
    expect(truncated.toTokens).toBeLessThanOrEqual(2_000 * 0.9 - 256);
    expect(truncated.fromTokens).toBeGreaterThan(2_000);
    expect(request.messages).toHaveLength(42);

    // A stream says so too.
    const stream = await p.stream(request);
    expect(stream.info.truncated?.contextWindow).toBe(2_000);
    expect((await stream.collect()).choices[0].message.content).toBe(`a read ${sent.messages.length} messages`);
    expect(b.requests).toHaveLength(0);
  });

  it('without truncate the router leaves out the small window and the large one gets the whole prompt', async () => {
    const { pipeline: p, a, b } = await setup(deployments, {}, [router()]);
    const answer = await p.chat(longConversation(20));
    expect(answer.switchyard.deployment).toBe('b/large');
    expect(answer.switchyard.truncated).toBeUndefined();
    expect(a.requests).toHaveLength(0);
    expect(JSON.parse(b.requests[0]!.body).messages).toHaveLength(42);
  });

  it('a prompt whose pinned turns overflow every window is a 400; one that fits no small window goes to the large one', async () => {
    const { pipeline: p, a, b } = await setup(() => [{ endpoint: 'a', model: 'small', contextWindow: 500 }, { endpoint: 'b', model: 'large', contextWindow: 1_000, priority: 5 }], { truncate: true, reserveOutputTokens: 100 });
    const huge: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(8_000) }] };
    await expect(p.chat(huge)).rejects.toMatchObject({ kind: 'context-length', code: 'SWITCHYARD_ERR_CONTEXT_WINDOW', status: 400, path: 'messages' });
    const middling: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(2_400) }] };
    expect((await p.chat(middling)).switchyard.deployment).toBe('b/large');
    expect(a.requests).toHaveLength(0);
    expect(b.requests).toHaveLength(1);
  });
});
