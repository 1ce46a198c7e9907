/**
 * Hostile and unexpressible input on /v1/messages: malformed bodies, unknown blocks, wrong types
 * get a 400 in Anthropic's shape naming the field; a request only Anthropic can take never
 * reaches another vendor half-translated; keys never leak.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { GATEWAY_KEY, raw, stopAll, vendor, type Loopback } from './support/harness.js';
import { MODEL, pipelineOf, scriptedVendor, startMessagesGateway, VENDOR_KEYS, type MessagesHarness } from './support/messages.js';

afterEach(stopAll);

const ok = (extra: Record<string, unknown> = {}) => ({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...extra });

function expectAnthropicError(res: { status: number; json: any }, status: number, type: string, field?: string) {
  expect(res.status).toBe(status);
  expect(res.json).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
  if (field) expect(res.json.error.message.startsWith(`${field}: `)).toBe(true);
}

describe('malformed requests', () => {
  let upstream: Loopback;
  let h: MessagesHarness;
  beforeEach(async () => {
    upstream = await scriptedVendor('openai', () => ({ text: 'fine' }));
    h = await startMessagesGateway(pipelineOf([{ name: 'openai', kind: 'openai', url: upstream.url }]), { server: { maxBodyBytes: 64 * 1024 } });
  });
  afterEach(async () => {
    // Whatever was thrown at it, nothing reached the vendor and the gateway still serves.
    expect(upstream.requests).toHaveLength(0);
    const still = await h.anthropic.messages.create(ok() as never);
    expect(still.content).toEqual([{ type: 'text', text: 'fine' }]);
  });

  it('a body that is not JSON, or too large', async () => {
    expectAnthropicError(await raw(h.origin, '/v1/messages', { body: '{"model": "x", "messages": [' }), 400, 'invalid_request_error');
    expectAnthropicError(await raw(h.origin, '/v1/messages', { body: JSON.stringify(ok({ messages: [{ role: 'user', content: 'x'.repeat(100_000) }] })) }), 413, 'request_too_large');
    expectAnthropicError(await raw(h.origin, '/v1/messages', { body: '[1,2]' }), 400, 'invalid_request_error', '(body)');
  });

  it.each([
    ['a missing max_tokens', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    ['a model that is not a string', ok({ model: 42 }), 'model'],
    ['no messages', ok({ messages: [] }), 'messages'],
    ['a system role turn', ok({ messages: [{ role: 'system', content: 'x' }] }), 'messages[0].role'],
    ['content that is a number', ok({ messages: [{ role: 'user', content: 7 }] }), 'messages[0].content'],
    ['a block without a type', ok({ messages: [{ role: 'user', content: [{ text: 'x' }] }] }), 'messages[0].content[0]'],
    ['an unknown block type', ok({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'hologram', data: 'x' }] }] }), 'messages[0].content[1].type'],
    ['text that is not a string', ok({ messages: [{ role: 'user', content: [{ type: 'text', text: ['a'] }] }] }), 'messages[0].content[0].text'],
    ['a tool_use in a user turn', ok({ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }] }), 'messages[0].content[0].type'],
    ['a tool_result in an assistant turn', ok({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't' }] }] }), 'messages[1].content[0].type'],
    ['tool_use input that is not an object', ok({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: '{}' }] }] }), 'messages[1].content[0].input'],
    ['a tool_result without its id', ok({ messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }), 'messages[0].content[0].tool_use_id'],
    ['is_error that is not a boolean', ok({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', is_error: 'yes' }] }] }), 'messages[0].content[0].is_error'],
    ['an image without a source', ok({ messages: [{ role: 'user', content: [{ type: 'image' }] }] }), 'messages[0].content[0].source'],
    ['a document of an unknown source type', ok({ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'ftp' } }] }] }), 'messages[0].content[0].source.type'],
    ['a system block that is not text', ok({ system: [{ type: 'image' }] }), 'system[0]'],
    ['a tool without input_schema', ok({ tools: [{ name: 'f' }] }), 'tools[0].input_schema'],
    ['an unknown tool_choice', ok({ tool_choice: { type: 'sometimes' } }), 'tool_choice.type'],
    ['a stream flag that is a string', ok({ stream: 'yes' }), 'stream'],
    ['a temperature that is a string', ok({ temperature: 'hot' }), 'temperature'],
    ['a thinking budget of zero', ok({ thinking: { type: 'enabled', budget_tokens: 0 } }), 'thinking.budget_tokens'],
    ['stop_sequences with a number', ok({ stop_sequences: ['END', 3] }), 'stop_sequences[1]'],
    ['metadata.user_id that is a number', ok({ metadata: { user_id: 5 } }), 'metadata.user_id'],
  ])('%s is a 400 naming the field', async (_what, body, field) => {
    const res = await raw(h.origin, '/v1/messages', { body: JSON.stringify(body) });
    expectAnthropicError(res, 400, 'invalid_request_error', field);
  });

  it('the SDK raises its BadRequestError with the error body', async () => {
    const error = await h.anthropic.messages.create(ok({ messages: [{ role: 'user', content: [{ type: 'hologram' }] }] }) as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages[0].content[0].type: unknown content block type "hologram"') } });
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).headers.get('x-should-retry')).toBe('false');
  });

  it('count_tokens checks the same way (and needs no max_tokens)', async () => {
    const res = await raw(h.origin, '/v1/messages/count_tokens', { body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: [{ type: 'hologram' }] }] }) });
    expectAnthropicError(res, 400, 'invalid_request_error', 'messages[0].content[0].type');
  });

  it('unknown routes and methods answer in Anthropic shape', async () => {
    expectAnthropicError(await raw(h.origin, '/v1/messages/batches'), 404, 'not_found_error');
    expectAnthropicError(await raw(h.origin, '/v1/messages', { method: 'GET' }), 405, 'invalid_request_error');
    const unknown = await h.anthropic.messages.create({ ...ok(), model: 'claude-nonexistent' } as never).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ error: { type: 'not_found_error', message: expect.stringContaining('unknown model "claude-nonexistent"') } });
  });
});

describe('authentication', () => {
  it('takes the gateway key as x-api-key (ANTHROPIC_API_KEY) or as a bearer token (ANTHROPIC_AUTH_TOKEN); anything else is a 401 authentication_error that echoes no key', async () => {
    const upstream = await scriptedVendor('anthropic', () => ({ text: 'hello' }));
    const h = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: upstream.url }]));
    const byApiKey = new Anthropic({ baseURL: h.origin, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const byToken = new Anthropic({ baseURL: h.origin, apiKey: null, authToken: GATEWAY_KEY, maxRetries: 0 });
    expect((await byApiKey.messages.create(ok() as never)).content).toEqual([{ type: 'text', text: 'hello' }]);
    expect((await byToken.messages.create(ok() as never)).content).toEqual([{ type: 'text', text: 'hello' }]);

    const wrongKey = 'sk-ant-wrong-key-0123456789abcdef';
    const error = await new Anthropic({ baseURL: h.origin, apiKey: wrongKey, maxRetries: 0 }).messages.create(ok() as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('x-api-key') } });
    expect(JSON.stringify((error as InstanceType<typeof Anthropic.AuthenticationError>).error)).not.toContain(wrongKey);
    expectAnthropicError(await raw(h.origin, '/v1/messages', { body: JSON.stringify(ok()), headers: { authorization: '' } }), 401, 'authentication_error');
    expectAnthropicError(await raw(h.origin, '/v1/messages/count_tokens', { body: JSON.stringify(ok()), headers: { authorization: '', 'x-api-key': wrongKey } }), 401, 'authentication_error');
    // What reached the vendor: its own key only, and neither the gateway key nor the client's headers.
    expect(upstream.requests).toHaveLength(2);
    for (const request of upstream.requests) {
      expect(request.headers['x-api-key']).toBe(VENDOR_KEYS.anthropic);
      expect(request.headers.authorization).toBeUndefined();
      expect(JSON.stringify(request)).not.toContain(GATEWAY_KEY);
    }
  });

  it("a vendor refusing the gateway's own key is the gateway's fault (500 api_error), and its key never reaches the client", async () => {
    const upstream = await vendor((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${String(req.headers['x-api-key'])}` } }));
    });
    const h = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: upstream.url }]));
    const res = await raw(h.origin, '/v1/messages', { body: JSON.stringify(ok()) });
    expectAnthropicError(res, 500, 'api_error');
    expect(res.text).not.toContain(VENDOR_KEYS.anthropic);
  });
});

describe('what only Anthropic can take', () => {
  async function gateway(kinds: ('anthropic' | 'openai' | 'gemini' | 'deepseek')[]) {
    const upstreams = await Promise.all(kinds.map((kind) => scriptedVendor(kind, () => ({ text: `from ${kind}` }))));
    const h = await startMessagesGateway(pipelineOf(kinds.map((kind, i) => ({ name: kind, kind, url: upstreams[i]!.url }))));
    return { ...h, upstreams };
  }

  const searchResult = { type: 'search_result', source: 'https://example.com/doc', title: 'Doc', content: [{ type: 'text', text: 'fact' }] };

  it.each([
    ['a search_result block', ok({ messages: [{ role: 'user', content: [{ type: 'text', text: 'use this' }, searchResult] }] }), 'messages[0].content[1]', 'a search_result block'],
    ['a server tool', ok({ tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] }), 'tools[0]', 'the code_execution_20250825 tool "code_execution"'],
    ['a document fetched from a URL', ok({ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }] }), 'messages[0].content[0].source', 'a document fetched by Anthropic from a URL'],
    ['a document with citations', ok({ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' }, citations: { enabled: true } }] }] }), 'messages[0].content[0].citations', 'a document with citations'],
    ['an MCP server', ok({ mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'x' }] }), 'mcp_servers', 'remote MCP servers'],
    ['a field this gateway does not know', ok({ output_format: { type: 'json_schema' } }), 'output_format', 'the field "output_format"'],
  ])('%s skips the other vendors before any attempt, and without Anthropic is a 400 naming the field and the targets', async (_what, body, field, what) => {
    const mixed = await gateway(['openai', 'anthropic']);
    const answered = await mixed.anthropic.messages.create(body as never);
    expect(answered.content).toEqual([{ type: 'text', text: 'from anthropic' }]);
    expect(mixed.upstreams[0]!.requests).toHaveLength(0);
    // Anthropic got it as the client wrote it.
    expect(JSON.parse(mixed.upstreams[1]!.requests[0]!.body)).toEqual({ ...body, model: 'claude-sonnet-4-5-20250929' });

    const others = await gateway(['openai', 'gemini']);
    const res = await raw(others.origin, '/v1/messages', { body: JSON.stringify(body) });
    expectAnthropicError(res, 400, 'invalid_request_error', field);
    expect(res.json.error.message).toBe(`${field}: ${what} has no equivalent outside anthropic.messages (openai does not speak it); no deployment of model "${MODEL}" can take it (openai/gpt-4.1, gemini/gemini-2.5-flash)`);
    expect(others.upstreams.every((u) => u.requests.length === 0)).toBe(true);
  });

  const pdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' }, title: 'spec.pdf' };

  it('a PDF document goes to OpenAI as a file part; a vendor without document input is skipped before any call', async () => {
    const h = await gateway(['deepseek', 'openai']);
    const body = ok({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise' }, pdf] }] });
    expect((await h.anthropic.messages.create(body as never)).content).toEqual([{ type: 'text', text: 'from openai' }]);
    expect(h.upstreams[0]!.requests).toHaveLength(0);
    expect(JSON.parse(h.upstreams[1]!.requests[0]!.body).messages[0].content).toEqual([
      { type: 'text', text: 'Summarise' },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'spec.pdf' } },
    ]);
  });

  it('a document to a vendor without document input is a 400 naming the field (in the client’s terms) and the target, before any call', async () => {
    const h = await gateway(['deepseek']);
    // The system prompt and the tool result become unified messages of their own: the error still names the client's block.
    const body = ok({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }, { type: 'text', text: 'and this:' }, pdf] },
      ],
    });
    const res = await raw(h.origin, '/v1/messages', { body: JSON.stringify(body) });
    expectAnthropicError(res, 400, 'invalid_request_error', 'messages[2].content[2]');
    expect(res.json.error.message).toBe(`messages[2].content[2]: a document (deepseek has no document input); no deployment of model "${MODEL}" can take it (deepseek/deepseek-chat)`);
    expect(h.upstreams[0]!.requests).toHaveLength(0);
    // Streaming gets the same status before any byte.
    const streamed = await raw(h.origin, '/v1/messages', { body: JSON.stringify({ ...body, stream: true }) });
    expectAnthropicError(streamed, 400, 'invalid_request_error', 'messages[2].content[2]');
  });

  it('an image in a tool result cannot reach OpenAI; Gemini reads a plain-text document that OpenAI cannot', async () => {
    const h = await gateway(['openai', 'gemini']);
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    const res = await raw(h.origin, '/v1/messages', {
      body: JSON.stringify(
        ok({
          messages: [
            { role: 'user', content: 'screenshot please' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'screenshot', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'here' }, image] }] },
          ],
        }),
      ),
    });
    expectAnthropicError(res, 400, 'invalid_request_error', 'messages[2].content[0].content[1]');
    expect(res.json.error.message).toContain('(openai takes text tool results only)');

    const notes = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Meeting notes: ship it.' } };
    const answered = await h.anthropic.messages.create(ok({ messages: [{ role: 'user', content: [notes, { type: 'text', text: 'Decision?' }] }] }) as never);
    expect(answered.content).toEqual([{ type: 'text', text: 'from gemini' }]);
    expect(h.upstreams[0]!.requests).toHaveLength(0);
    expect(JSON.parse(h.upstreams[1]!.requests[0]!.body).contents[0].parts[0]).toEqual({ inlineData: { mimeType: 'text/plain', data: Buffer.from('Meeting notes: ship it.').toString('base64') } });
  });
});
