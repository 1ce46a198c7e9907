/**
 * The Responses API codec of the family: requests that came in that dialect go to `/responses`
 * as the client wrote them (the `openai` provider by default, any endpoint with the
 * `responsesApi` option), `response` objects and typed events become unified answers and
 * parts with their wire text, and in-band failures are classified.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type Candidate, type ChatRequest, type Pipeline, type StreamPart } from '@switchyard/core';
import { OPENAI_RESPONSES, setRequestOrigin, wireBodyOf, wireJsonOf, wireTextOf } from '@switchyard/core/wire';
import { azureProvider, openaiCompatibleProvider, openaiProvider } from './index.js';
import { attemptError, cassette, closeAll, startVendor, SECRET_KEY, type Vendor } from './test-support/harness.js';

afterEach(closeAll);

const servers: Vendor[] = [];
const pipelines: Pipeline[] = [];
afterEach(async () => {
  await Promise.all(pipelines.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function target(provider: string, options: Record<string, unknown> = {}, apiVersion?: string): Candidate {
  return {
    id: 'up/m',
    deploymentId: 'up/m',
    endpoint: { name: 'up', provider, baseUrl: 'https://example.test/v1', options, ...(apiVersion ? { apiVersion } : {}) },
    deployment: { endpoint: 'up', model: 'gpt-upstream' },
    provider,
    model: 'gpt-upstream',
    keyIndex: 0,
    keyId: 'up#0',
    apiKey: SECRET_KEY,
    priority: 0,
    weight: 1,
    capabilities: new Set(),
    timeouts: { headersMs: 1000, firstTokenMs: 1000, idleMs: 1000, attemptMs: 1000 },
  };
}

/** A unified request with the client's Responses body as its origin. */
function fromResponses(body: Record<string, unknown>): ChatRequest {
  const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };
  setRequestOrigin(request, { format: OPENAI_RESPONSES, body });
  return request;
}

const clientBody = { model: 'chat', input: [{ role: 'user', content: 'hi' }], include: ['reasoning.encrypted_content'], store: true, previous_response_id: null, switchyard: { tier: 'x' }, stream_options: { include_obfuscation: false } };

describe('which wire a request goes on', () => {
  it('openai sends a Responses request to /responses: the client body with the upstream model and stream (the client’s store as it is)', () => {
    expect(openaiProvider.speaks?.(OPENAI_RESPONSES, target('openai'))).toBe(true);
    const built = openaiProvider.buildRequest(fromResponses(clientBody), target('openai'), { stream: true });
    expect(built.path).toBe('/responses');
    expect(built.headers).toMatchObject({ accept: 'text/event-stream', authorization: `Bearer ${SECRET_KEY}` });
    expect(JSON.parse(built.body!)).toEqual({ model: 'gpt-upstream', input: clientBody.input, include: clientBody.include, stream_options: clientBody.stream_options, store: true, stream: true });
    const json = JSON.parse(openaiProvider.buildRequest(fromResponses(clientBody), target('openai'), { stream: false }).body!);
    expect(json).not.toHaveProperty('stream');
    expect(json).not.toHaveProperty('stream_options');
  });

  it('a request without a Responses origin, or an endpoint with responsesApi: false, goes to /chat/completions', () => {
    expect(openaiProvider.buildRequest({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, target('openai'), { stream: false }).path).toBe('/chat/completions');
    const off = target('openai', { responsesApi: false });
    expect(openaiProvider.speaks?.(OPENAI_RESPONSES, off)).toBe(false);
    expect(openaiProvider.buildRequest(fromResponses(clientBody), off, { stream: false }).path).toBe('/chat/completions');
  });

  it('openai-compatible and azure speak it only when the endpoint turns it on', () => {
    expect(openaiCompatibleProvider.speaks?.(OPENAI_RESPONSES, target('openai-compatible'))).toBe(false);
    expect(openaiCompatibleProvider.buildRequest(fromResponses(clientBody), target('openai-compatible'), { stream: false }).path).toBe('/chat/completions');
    expect(openaiCompatibleProvider.buildRequest(fromResponses(clientBody), target('openai-compatible', { responsesApi: true }), { stream: false }).path).toBe('/responses');
    expect(azureProvider.speaks?.(OPENAI_RESPONSES, target('azure'))).toBe(false);
    const azure = azureProvider.buildRequest(fromResponses(clientBody), target('azure', { responsesApi: true }, '2025-04-01-preview'), { stream: false });
    expect(azure.path).toBe('/openai/responses?api-version=2025-04-01-preview');
    expect(JSON.parse(azure.body!).model).toBe('gpt-upstream');
    expect(azureProvider.buildRequest(fromResponses(clientBody), target('azure', { responsesApi: true }, 'v1'), { stream: false }).path).toBe('/openai/v1/responses');
  });
});

const response = (fields: Record<string, unknown>) => ({ id: 'resp_1', object: 'response', created_at: 1_770_000_000, status: 'completed', model: 'gpt-5-mini', output: [], usage: { input_tokens: 9, input_tokens_details: { cached_tokens: 4 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 15 }, ...fields });
const http = (body: unknown) => ({ status: 200, headers: {}, text: JSON.stringify(body), json: body });

describe('a response object', () => {
  it('becomes the unified answer (text, refusal-free message, reasoning, usage) and keeps its own text', () => {
    const body = response({
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking briefly.' }], encrypted_content: 'gAAA' },
        { id: 'ws_1', type: 'web_search_call', status: 'completed' },
        { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello ', annotations: [] }, { type: 'output_text', text: 'there.', annotations: [] }] },
      ],
      service_tier: 'priority',
    });
    const unified = openaiProvider.parseResponse(http(body), target('openai'));
    expect(unified).toMatchObject({ id: 'resp_1', created: 1_770_000_000, model: 'gpt-5-mini', providerMetadata: { openai: { status: 'completed', service_tier: 'priority' } } });
    expect(unified.choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'Hello there.', reasoning_content: 'Thinking briefly.' }, finish_reason: 'stop' }]);
    expect(unified.usage).toEqual({ prompt_tokens: 9, completion_tokens: 6, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 }, server_tool_calls: { web_search: 1 } });
    expect(wireBodyOf(unified, OPENAI_RESPONSES)).toBe(JSON.stringify(body));
    // The body as parsed, for the dialect that stores the vendor's object (it does not parse the text again); no other format gets it.
    expect(wireJsonOf(unified, OPENAI_RESPONSES)).toEqual(body);
    expect(wireJsonOf(unified, 'openai.chat.completion')).toBeUndefined();
  });

  it('function calls are tool calls; an incomplete response says why', () => {
    const calls = openaiProvider.parseResponse(http(response({ output: [{ id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' }] })), target('openai'));
    expect(calls.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: 'tool_calls' });
    const cut = openaiProvider.parseResponse(http(response({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })), target('openai'));
    expect(cut.choices[0]!.finish_reason).toBe('length');
    const filtered = openaiProvider.parseResponse(http(response({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } })), target('openai'));
    expect(filtered.choices[0]!.finish_reason).toBe('content_filter');
  });

  it('a failed response is an error of the kind its code says, with the key masked', () => {
    const failed = (code: string) => {
      try {
        openaiProvider.parseResponse(http(response({ status: 'failed', error: { code, message: `trouble for ${SECRET_KEY}` } })), target('openai'));
      } catch (error) {
        return error as { kind: string; message: string; vendorCode?: string };
      }
      throw new Error('expected a failure');
    };
    expect(failed('server_error')).toMatchObject({ kind: 'server', vendorCode: 'server_error' });
    expect(failed('rate_limit_exceeded').kind).toBe('rate-limit');
    expect(failed('invalid_prompt').kind).toBe('bad-request');
    expect(failed('invalid_image_format').kind).toBe('bad-request');
    expect(failed('image_content_policy_violation').kind).toBe('content-filter');
    expect(failed('server_error').message).not.toContain(SECRET_KEY);
  });

  it('a recorded /responses 400 (pydantic-ai cassette) is a request failure naming its param', async () => {
    const recorded = cassette('pydantic-ai__test_openai_responses_model_http_error.yaml');
    const vendor = await startVendor({ status: recorded.status, headers: recorded.headers, body: recorded.body });
    servers.push(vendor);
    const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'openai', baseUrl: vendor.url, apiKey: SECRET_KEY }], models: { chat: [{ endpoint: 'up', model: 'gpt-4o' }] }, providers: [openaiProvider] });
    pipelines.push(pipeline);
    const error = await attemptError(pipeline.chat(fromResponses(recorded.requestBody as Record<string, unknown>)));
    expect(error).toMatchObject({ kind: 'bad-request', status: 400, vendorCode: 'decimal_below_min_value', param: 'temperature' });
    expect(vendor.requests[0]!.path).toBe('/v1/responses');
  });
});

const ev = (type: string, fields: Record<string, unknown> = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

describe('a Responses event stream', () => {
  async function streamOf(events: string[], request: ChatRequest = fromResponses({ model: 'chat', input: 'hi' })): Promise<StreamPart[]> {
    const vendor = await startVendor({ body: events });
    servers.push(vendor);
    const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'openai', baseUrl: vendor.url, apiKey: SECRET_KEY }], models: { chat: [{ endpoint: 'up', model: 'gpt-x' }] }, providers: [openaiProvider] });
    pipelines.push(pipeline);
    const parts: StreamPart[] = [];
    for await (const part of await pipeline.stream(request)) parts.push(part);
    return parts;
  }

  const created = ev('response.created', { sequence_number: 0, response: response({ status: 'in_progress', output: [], usage: null }) });

  it('becomes parts, one per event at most, each carrying its event text (and the part-less events before it)', async () => {
    const events = [
      created,
      ev('response.in_progress', { sequence_number: 1 }),
      ev('response.output_item.added', { sequence_number: 2, output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
      ev('response.reasoning_summary_text.delta', { sequence_number: 3, item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Hmm.' }),
      ev('response.output_item.added', { sequence_number: 4, output_index: 1, item: { id: 'fc_1', type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '' } }),
      ev('response.function_call_arguments.delta', { sequence_number: 5, item_id: 'fc_1', output_index: 1, delta: '{"q":1}' }),
      ev('response.output_item.done', { sequence_number: 6, output_index: 1, item: { id: 'fc_1', type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '{"q":1}' } }),
      ev('response.completed', { sequence_number: 7, response: response({}) }),
    ];
    const parts = await streamOf(events);
    expect(parts).toEqual([
      { type: 'response-metadata', id: 'resp_1', model: 'gpt-5-mini', created: 1_770_000_000 },
      { type: 'reasoning-delta', text: 'Hmm.' },
      { type: 'tool-call-delta', index: 0, id: 'call_9', name: 'lookup', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":1}' },
      { type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } } },
    ]);
    expect(parts.map((p) => wireTextOf(p))).toEqual([events[0], events[1]! + events[2]! + events[3]!, events[4], events[5], events[6]! + events[7]!]);
  });

  it('without a Responses origin there is no wire text (the chat decoder and /chat/completions are used)', async () => {
    const vendor = await startVendor({ body: ['data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\n', 'data: [DONE]\n\n'] });
    servers.push(vendor);
    const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'openai', baseUrl: vendor.url, apiKey: SECRET_KEY }], models: { chat: [{ endpoint: 'up', model: 'gpt-x' }] }, providers: [openaiProvider] });
    pipelines.push(pipeline);
    const parts: StreamPart[] = [];
    for await (const part of await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })) parts.push(part);
    expect(parts.every((p) => wireTextOf(p) === undefined)).toBe(true);
    expect(vendor.requests[0]!.path).toBe('/v1/chat/completions');
  });

  it('response.failed and error events after the first token end the stream with a classified error', async () => {
    const delta = ev('response.output_text.delta', { sequence_number: 1, item_id: 'm', output_index: 0, content_index: 0, delta: 'Hi' });
    const failed = await streamOf([created, delta, ev('response.failed', { sequence_number: 2, response: response({ status: 'failed', error: { code: 'server_error', message: 'boom' } }) })]);
    expect(failed.at(-1)).toMatchObject({ type: 'error', error: { kind: 'server', vendorCode: 'server_error', endpoint: 'up' } });
    const errored = await streamOf([created, delta, ev('error', { sequence_number: 2, code: 'rate_limit_exceeded', message: 'slow down', param: null })]);
    expect(errored.at(-1)).toMatchObject({ type: 'error', error: { kind: 'rate-limit' } });
    const incomplete = await streamOf([created, delta, ev('response.incomplete', { sequence_number: 2, response: response({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }) })]);
    expect(incomplete.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });
});
