/**
 * Hostile and malformed Responses requests: each is a 400 in the OpenAI error shape whose
 * `param` names the field (`input[2].content[0].type`), before any vendor call; a vendor's
 * error that quotes its key reaches the client masked.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPipeline } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { raw, startGateway, stopAll, vendor, VENDOR_KEY, type Harness, type Loopback } from './support/harness.js';
import { responsesVendor, textScript } from './support/scripted-vendors.js';

let upstream: Loopback;
let h: Harness;

beforeAll(async () => {
  upstream = await vendor(responsesVendor(textScript('fine')));
  h = await startGateway(createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: upstream.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-x' }] }, providers: [openaiProvider] }), { server: { limits: { maxMessages: 50 } } });
});

const ok = { model: 'chat', input: 'hi' };
const user = (content: unknown) => ({ role: 'user', content });

const CASES: [name: string, body: unknown, param: string][] = [
  ['a body that is an array', [ok], '(body)'],
  ['no model', { input: 'hi' }, 'model'],
  ['a model that is a number', { model: 5, input: 'hi' }, 'model'],
  ['input that is a number', { model: 'chat', input: 42 }, 'input'],
  ['no input at all', { model: 'chat', instructions: 'hello' }, 'input'],
  ['an item that is not an object', { model: 'chat', input: ['hi'] }, 'input[0]'],
  ['an item type that is not a string', { model: 'chat', input: [{ type: 7 }] }, 'input[0].type'],
  ['an unknown item type', { model: 'chat', input: [{ type: 'telepathy', content: 'x' }] }, 'input[0].type'],
  ['an unknown role', { model: 'chat', input: [{ role: 'wizard', content: 'x' }] }, 'input[0].role'],
  ['content that is a number', { model: 'chat', input: [user(3)] }, 'input[0].content'],
  ['an unknown content type', { model: 'chat', input: [user('a'), { role: 'assistant', content: 'b' }, user([{ type: 'input_hologram' }])] }, 'input[2].content[0].type'],
  ['a content part without a type', { model: 'chat', input: [user([{ text: 'x' }])] }, 'input[0].content[0].type'],
  ['input_text without text', { model: 'chat', input: [user([{ type: 'input_text', text: 5 }])] }, 'input[0].content[0].text'],
  ['input_image without a URL', { model: 'chat', input: [user([{ type: 'input_image', detail: 'auto' }])] }, 'input[0].content[0].image_url'],
  ['input_file without data', { model: 'chat', input: [user([{ type: 'input_file', filename: 'a.pdf' }])] }, 'input[0].content[0].file_data'],
  ['an assistant part of a user-only type', { model: 'chat', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x' }] }] }, 'input[0].content[0].type'],
  ['a function_call without call_id', { model: 'chat', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input[0].call_id'],
  ['function_call arguments that are an object', { model: 'chat', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] }, 'input[0].arguments'],
  ['a function_call_output output that is a number', { model: 'chat', input: [{ type: 'function_call_output', call_id: 'c', output: 1 }] }, 'input[0].output'],
  ['a reasoning summary that is a string', { model: 'chat', input: [user('x'), { type: 'reasoning', summary: 'thinking' }] }, 'input[1].summary'],
  ['tools that are an object', { ...ok, tools: { type: 'function' } }, 'tools'],
  ['a tool without a type', { ...ok, tools: [{ name: 'f' }] }, 'tools[0].type'],
  ['a function tool without a name', { ...ok, tools: [{ type: 'function', parameters: {} }] }, 'tools[0].name'],
  ['tool parameters that are a string', { ...ok, tools: [{ type: 'function', name: 'f', parameters: 'object' }] }, 'tools[0].parameters'],
  ['an unknown tool_choice', { ...ok, tool_choice: 'sometimes' }, 'tool_choice'],
  ['a function tool_choice without a name', { ...ok, tool_choice: { type: 'function' } }, 'tool_choice.name'],
  ['an unknown text format', { ...ok, text: { format: { type: 'yaml' } } }, 'text.format.type'],
  ['a json_schema format without a schema', { ...ok, text: { format: { type: 'json_schema', name: 's' } } }, 'text.format.schema'],
  ['a temperature that is a string', { ...ok, temperature: 'hot' }, 'temperature'],
  ['a negative max_output_tokens', { ...ok, max_output_tokens: -1 }, 'max_output_tokens'],
  ['metadata that is not strings', { ...ok, metadata: { run: 1 } }, 'metadata.run'],
  ['reasoning that is a string', { ...ok, reasoning: 'high' }, 'reasoning'],
  ['instructions that are a number', { ...ok, instructions: 5 }, 'instructions'],
  ['stream that is a string', { ...ok, stream: 'yes' }, 'stream'],
  ['store that is a string', { ...ok, store: 'yes' }, 'store'],
  ['a previous_response_id that is a number', { ...ok, previous_response_id: 5 }, 'previous_response_id'],
  ['conversation with previous_response_id', { ...ok, previous_response_id: 'resp_1', conversation: 'conv_1' }, 'conversation'],
  ['a background response', { ...ok, background: true }, 'background'],
  ['a hint that is not a string', { ...ok, switchyard: { tags: { x: { toString: 1 } } } }, 'switchyard.tags.x'],
  ['more items than server.limits.maxMessages', { model: 'chat', input: Array.from({ length: 51 }, () => user('x')) }, 'input'],
  ['an array past maxArrayLength', { ...ok, metadata_x: new Array(20_000).fill(0) }, 'metadata_x'],
];

describe('malformed Responses requests', () => {
  it.each(CASES)('%s → 400 naming %s, nothing sent upstream', async (_name, body, param) => {
    const before = upstream.requests.length;
    const res = await raw(h.origin, '/v1/responses', { body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(typeof res.json.error.message).toBe('string');
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(upstream.requests.length).toBe(before);
  });

  it('malformed JSON and a wrong key are refused before any of it is read', async () => {
    expect((await raw(h.origin, '/v1/responses', { body: '{"model": "chat", "input": [' })).status).toBe(400);
    const wrongKey = await raw(h.origin, '/v1/responses', { body: JSON.stringify(ok), headers: { authorization: 'Bearer nope' } });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json.error.code).toBe('invalid_api_key');
  });

  it('the gateway keeps answering after all of it', async () => {
    expect((await h.client.responses.create(ok)).output_text).toBe('fine');
  });
});

describe('vendor errors on the Responses route', () => {
  afterEach(stopAll);

  it('a vendor error that quotes the key reaches the client masked, in the OpenAI error shape', async () => {
    const leaky = await vendor((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Invalid input for key ${VENDOR_KEY}: bad tool schema`, type: 'invalid_request_error', param: 'tools[0].parameters', code: 'invalid_function_parameters' } }));
    });
    const { origin } = await startGateway(createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: leaky.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-x' }] }, providers: [openaiProvider] }));
    for (const stream of [false, true]) {
      const res = await raw(origin, '/v1/responses', { body: JSON.stringify({ ...ok, stream }) });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_function_parameters', param: 'tools[0].parameters' });
      expect(res.text).not.toContain(VENDOR_KEY);
      expect(res.json.error.message).toContain('bad tool schema');
    }
  });
});
