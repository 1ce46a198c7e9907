/**
 * Where client and vendor speak the same dialect (a Responses client, the `openai` provider on
 * `/responses`), the answer passes through as the vendor wrote it: the client receives the
 * vendor's bytes (its spacing, its fields no unified type models, its hosted-tool items), and
 * the vendor receives the client's fields, with only what routing changes. Parts only the
 * Responses API carries (hosted tools) keep other vendors out before any attempt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore } from '@switchyard/core';
import type { JsonText } from '@switchyard/core/internal';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider, vendorPresetProviders } from '@switchyard/provider-openai';
import { RESPONSE_KEY_PREFIX } from '@switchyard/provider-openai/dialect';
import { raw, startGateway, stopAll, vendor, VENDOR_KEY, type Loopback } from './support/harness.js';
import { anthropicVendor, chatVendor, textScript } from './support/scripted-vendors.js';

afterEach(stopAll);

const base = { object: 'response', created_at: 1_770_000_000, error: null, incomplete_details: null, model: 'gpt-5-mini', service_tier: 'priority', safety_identifier: 'user-7f3a', x_vendor_extension: { nested: [1, { deep: true }] } };
const ev = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;
const search = { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'weather paris', sources: [{ type: 'url', url: 'https://weather.example/paris' }] } };
const message = { id: 'msg_pt1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Sunny, 18C.', annotations: [{ type: 'url_citation', start_index: 0, end_index: 5, url: 'https://weather.example/paris', title: 'Paris' }], logprobs: [] }] };
const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 };

/** A vendor stream with a hosted tool, an annotation, unmodeled fields, and deltas spaced as no JSON encoder of ours would write them. */
const VENDOR_STREAM = [
  ev('response.created', JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_pt1', ...base, status: 'in_progress', output: [], usage: null } })),
  ev('response.in_progress', JSON.stringify({ type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_pt1', ...base, status: 'in_progress', output: [], usage: null } })),
  ev('response.output_item.added', JSON.stringify({ type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress' } })),
  ev('response.web_search_call.in_progress', JSON.stringify({ type: 'response.web_search_call.in_progress', sequence_number: 3, output_index: 0, item_id: 'ws_1' })),
  ev('response.web_search_call.searching', JSON.stringify({ type: 'response.web_search_call.searching', sequence_number: 4, output_index: 0, item_id: 'ws_1' })),
  ev('response.web_search_call.completed', JSON.stringify({ type: 'response.web_search_call.completed', sequence_number: 5, output_index: 0, item_id: 'ws_1' })),
  ev('response.output_item.done', JSON.stringify({ type: 'response.output_item.done', sequence_number: 6, output_index: 0, item: search })),
  ev('response.output_item.added', JSON.stringify({ type: 'response.output_item.added', sequence_number: 7, output_index: 1, item: { id: 'msg_pt1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } })),
  ev('response.content_part.added', JSON.stringify({ type: 'response.content_part.added', sequence_number: 8, item_id: 'msg_pt1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } })),
  ev('response.output_text.delta', '{"type": "response.output_text.delta", "sequence_number": 9, "item_id": "msg_pt1", "output_index": 1, "content_index": 0, "delta": "Sunny,", "logprobs": [], "obfuscation": "q1"}'),
  ev('response.output_text.delta', '{"type": "response.output_text.delta", "sequence_number": 10, "item_id": "msg_pt1", "output_index": 1, "content_index": 0, "delta": " 18C.", "logprobs": [], "obfuscation": "Zx"}'),
  ev('response.output_text.annotation.added', JSON.stringify({ type: 'response.output_text.annotation.added', sequence_number: 11, item_id: 'msg_pt1', output_index: 1, content_index: 0, annotation_index: 0, annotation: message.content[0]!.annotations[0] })),
  ev('response.output_text.done', JSON.stringify({ type: 'response.output_text.done', sequence_number: 12, item_id: 'msg_pt1', output_index: 1, content_index: 0, text: 'Sunny, 18C.', logprobs: [] })),
  ev('response.content_part.done', JSON.stringify({ type: 'response.content_part.done', sequence_number: 13, item_id: 'msg_pt1', output_index: 1, content_index: 0, part: message.content[0] })),
  ev('response.output_item.done', JSON.stringify({ type: 'response.output_item.done', sequence_number: 14, output_index: 1, item: message })),
  ev('response.completed', JSON.stringify({ type: 'response.completed', sequence_number: 15, response: { id: 'resp_pt1', ...base, status: 'completed', output: [search, message], usage } })),
].join('');

const VENDOR_JSON = `{ "id": "resp_pt2", "object": "response", "created_at": 1770000000, "status": "completed", "model": "gpt-5-mini", "service_tier": "priority", "output": ${JSON.stringify([search, message])}, "usage": ${JSON.stringify(usage)}, "x_vendor_extension": {"nested": [1, {"deep": true}]} }`;

function openaiVendor(): Promise<Loopback> {
  return vendor((_req, res, body) => {
    const stream = JSON.parse(body).stream === true;
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    res.end(stream ? VENDOR_STREAM : VENDOR_JSON);
  });
}

/** What a client of the Responses API sends, with fields the unified request has no place for. */
const CLIENT_BODY = {
  model: 'chat',
  input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] }],
  instructions: 'Cite sources.',
  tools: [{ type: 'web_search', search_context_size: 'low' }],
  include: ['web_search_call.action.sources'],
  reasoning: { effort: 'low', summary: 'auto' },
  text: { format: { type: 'text' }, verbosity: 'low' },
  service_tier: 'priority',
  truncation: 'auto',
  prompt_cache_key: 'weather-v1',
  safety_identifier: 'user-7f3a',
  store: false,
  switchyard: { tags: { team: 'search' } },
};

describe('Responses pass-through to an openai vendor', () => {
  it('streams the vendor’s events byte for byte, and sends the client’s fields on (its store included) with only the model and stream changed', async () => {
    const openai = await openaiVendor();
    const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider] });
    const { origin, client } = await startGateway(pipeline);
    const wire = await raw(origin, '/v1/responses', { body: JSON.stringify({ ...CLIENT_BODY, stream: true }) });
    expect(wire.status).toBe(200);
    expect(wire.headers.get('content-type')).toContain('text/event-stream');
    // The vendor's events as they came, but for the response id: the client sees the gateway's.
    const id = /"id":"(resp_[0-9a-f]{32})"/.exec(wire.text)![1]!;
    expect(wire.text).toBe(VENDOR_STREAM.split('"resp_pt1"').join(`"${id}"`));

    expect(openai.requests[0]!.path).toBe('/v1/responses');
    const { switchyard: _hints, ...forwarded } = CLIENT_BODY;
    expect(JSON.parse(openai.requests[0]!.body)).toEqual({ ...forwarded, model: 'gpt-5-mini', stream: true });
    expect(openai.requests[0]!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);

    // The SDK's stream helper accumulates the same response OpenAI would have given it.
    const final = await client.responses.stream(CLIENT_BODY as never).finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(final.output_text).toBe('Sunny, 18C.');
    expect(final).toMatchObject({ service_tier: 'priority', safety_identifier: 'user-7f3a' });
    expect(final.id).toMatch(/^resp_[0-9a-f]{32}$/);
  });

  it('sends the client’s own text with only the model replaced; a turn that continues a stored one is serialized with its history', async () => {
    const openai = await openaiVendor();
    const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider] });
    const { origin } = await startGateway(pipeline);
    const { switchyard: _hints, ...fields } = CLIENT_BODY;
    // Spaced and ordered as a client may write it, which JSON.stringify would not give back.
    const written = `{ "input": ${JSON.stringify(fields.input, null, 1)},\n "model" : "chat", "tools": ${JSON.stringify(fields.tools)}, "store": true, "stream": true }`;
    const first = await raw(origin, '/v1/responses', { body: written });
    expect(first.status).toBe(200);
    expect(openai.requests[0]!.body).toBe(written.replace('"model" : "chat"', '"model":"gpt-5-mini"'));
    // The next turn names the stored one: what goes upstream is its history and this input, serialized.
    const id = /"id":"(resp_[0-9a-f]{32})"/.exec(first.text)![1]!;
    const next = `{ "model": "chat", "previous_response_id": "${id}", "input": "And tomorrow?", "stream": true }`;
    expect((await raw(origin, '/v1/responses', { body: next })).status).toBe(200);
    const sent = JSON.parse(openai.requests[1]!.body) as { input: unknown[]; previous_response_id?: string };
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.input.length).toBeGreaterThan(2);
    expect(openai.requests[1]!.body).not.toContain('\n');
  });

  it('stores the streamed answer as the client received it: the terminal event’s response, the vendor’s id replaced wherever it is', async () => {
    // The vendor names its own id beside the response's (an echo, in an array): the client sees the gateway's in both.
    const echo = { x_echo: ['resp_pt1', { of: 'resp_pt1', not: 'resp_pt10' }] };
    const stream = VENDOR_STREAM.replace(/"response":\{"id":"resp_pt1",(?=[^\n]*"status":"completed")/, `"response":{"id":"resp_pt1",${JSON.stringify(echo).slice(1, -1)},`);
    expect(stream).not.toBe(VENDOR_STREAM);
    const openai = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(stream);
    });
    const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider] });
    const { origin } = await startGateway(pipeline);
    const wire = await raw(origin, '/v1/responses', { body: JSON.stringify({ ...CLIENT_BODY, store: true, stream: true }) });
    const completed = wire.text.split('\n\n').find((event) => event.startsWith('event: response.completed\n'))!;
    const received = JSON.parse(completed.slice(completed.indexOf('data: ') + 6)).response;
    expect(received.x_echo).toEqual([received.id, { of: received.id, not: 'resp_pt10' }]);
    const stored = await raw(origin, `/v1/responses/${received.id}`, { method: 'GET' });
    expect(stored.status).toBe(200);
    // Key for key and in the same order: what GET answers is what the stream ended with.
    expect(stored.text).toBe(JSON.stringify(received));
  });

  it('keeps the stored answer as the text the client got (the vendor’s spacing too), not serialized again; a terminal event on two data lines is stored all the same', async () => {
    // JSON spaced as no encoder of ours writes it, on one line: `{"id": "resp_pt1", …}`.
    const spaced = (value: unknown): string =>
      Array.isArray(value) ? `[${value.map(spaced).join(', ')}]` : value !== null && typeof value === 'object' ? `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${spaced(v)}`).join(', ')}}` : JSON.stringify(value);
    const completed = { type: 'response.completed', sequence_number: 15, response: { id: 'resp_pt1', ...base, status: 'completed', output: [search, message], usage } };
    const head = VENDOR_STREAM.slice(0, VENDOR_STREAM.indexOf('event: response.completed\n'));
    const bodies = [head + ev('response.completed', spaced(completed)), head + ev('response.completed', spaced(completed).replace(', "response": ', ',\ndata: "response": '))];
    for (const [n, body] of bodies.entries()) {
      const store = new MemoryStateStore();
      const openai = await vendor((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(body);
      });
      const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider], store });
      const { origin } = await startGateway(pipeline);
      const wire = await raw(origin, '/v1/responses', { body: JSON.stringify({ ...CLIENT_BODY, store: true, stream: true }) });
      const event = wire.text.split('\n\n').find((text) => text.startsWith('event: response.completed\n'))!;
      const data = event.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
      const received = JSON.parse(data).response;
      expect(received.id).toMatch(/^resp_[0-9a-f]{32}$/);
      const entry = (await store.get<JsonText>(`${RESPONSE_KEY_PREFIX}${received.id}`))!.json;
      if (n === 0) expect(entry.startsWith(`{"response":${spaced({ ...completed.response, id: received.id })},"input":`)).toBe(true);
      else expect(entry.startsWith(`{"response":${JSON.stringify({ ...completed.response, id: received.id })},"input":`)).toBe(true);
      // Counted at its size before its size and slice were written after it.
      expect((JSON.parse(entry) as { bytes: number }).bytes).toBe(entry.indexOf(',"bytes":') + 1);
      const stored = await raw(origin, `/v1/responses/${received.id}`, { method: 'GET' });
      expect(stored.text).toBe(JSON.stringify(received));
    }
  });

  it('reads events whose event line has white space a parser keeps (`event:  name`) by their data: the gateway’s id in every one, the answer stored', async () => {
    const spaced = VENDOR_STREAM.replaceAll('event: ', 'event:  ');
    const openai = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(spaced);
    });
    const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider] });
    const { origin, client } = await startGateway(pipeline);
    const wire = await raw(origin, '/v1/responses', { body: JSON.stringify({ ...CLIENT_BODY, store: true, stream: true }) });
    expect(wire.status).toBe(200);
    // Read by the event line's name taken as it is (" response.created"), no lifecycle event would get the gateway's id.
    expect(wire.text).not.toContain('resp_pt1');
    const id = /"id":"(resp_[0-9a-f]{32})"/.exec(wire.text)![1]!;
    expect(wire.text).toBe(spaced.split('"resp_pt1"').join(`"${id}"`));
    expect((await raw(origin, `/v1/responses/${id}`, { method: 'GET' })).status).toBe(200);
    const final = await client.responses.stream({ ...CLIENT_BODY, store: false } as never).finalResponse();
    expect(final.output_text).toBe('Sunny, 18C.');
  });

  it('answers JSON with the vendor’s body as it came, the response id the gateway’s', async () => {
    const openai = await openaiVendor();
    const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider] });
    const { origin } = await startGateway(pipeline);
    const wire = await raw(origin, '/v1/responses', { body: JSON.stringify(CLIENT_BODY) });
    expect(wire.status).toBe(200);
    const id = wire.json.id as string;
    expect(id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(wire.text).toBe(VENDOR_JSON.replace('"resp_pt2"', `"${id}"`));
    expect(wire.headers.get('x-switchyard-endpoint')).toBe('openai');
    expect(JSON.parse(openai.requests[0]!.body)).not.toHaveProperty('stream');
  });

  it('an endpoint with responsesApi: false gets the unified request on /chat/completions instead', async () => {
    const compatible = await vendor(chatVendor(textScript('via chat')));
    const pipeline = createPipeline({
      endpoints: [{ name: 'openai', provider: 'openai', baseUrl: compatible.url, apiKey: VENDOR_KEY, options: { responsesApi: false } }],
      models: { chat: [{ endpoint: 'openai', model: 'gpt-4o' }] },
      providers: [openaiProvider],
    });
    const { client } = await startGateway(pipeline);
    const answer = await client.responses.create({ model: 'chat', instructions: 'Be brief.', input: 'hi', max_output_tokens: 20, text: { format: { type: 'json_object' } }, reasoning: { effort: 'low' } });
    expect(answer.output_text).toBe('via chat');
    expect(compatible.requests[0]!.path).toBe('/v1/chat/completions');
    expect(JSON.parse(compatible.requests[0]!.body)).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }],
      max_completion_tokens: 20,
      response_format: { type: 'json_object' },
      reasoning_effort: 'low',
    });
  });
});

describe('parts only the Responses API carries', () => {
  it('a stored prompt without input goes to OpenAI as the client wrote it', async () => {
    const openai = await openaiVendor();
    const pipeline = createPipeline({ endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'openai', model: 'gpt-5-mini' }] }, providers: [openaiProvider] });
    const { client } = await startGateway(pipeline);
    const answer = await client.responses.create({ model: 'chat', prompt: { id: 'pmpt_weather', variables: { city: 'Paris' } } });
    expect(answer.output_text).toBe('Sunny, 18C.');
    expect(JSON.parse(openai.requests[0]!.body)).toEqual({ model: 'gpt-5-mini', prompt: { id: 'pmpt_weather', variables: { city: 'Paris' } } });
  });

  it('skip a vendor of another dialect before any attempt; the openai candidate answers', async () => {
    const claude = await vendor(anthropicVendor(textScript('never')));
    const openai = await openaiVendor();
    const pipeline = createPipeline({
      endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }, { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }],
      models: { chat: [{ endpoint: 'claude', model: 'claude-x' }, { endpoint: 'openai', model: 'gpt-5-mini' }] },
      providers: [openaiProvider, anthropicProvider],
    });
    const { client } = await startGateway(pipeline);
    const { data, response } = await client.responses.create({ model: 'chat', input: 'Weather in Paris?', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }).withResponse();
    expect(data.output_text).toBe('Sunny, 18C.');
    expect(response.headers.get('x-switchyard-endpoint')).toBe('openai');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(claude.requests).toHaveLength(0);
  });

  it('are a 400 naming the field and the targets when no candidate speaks the Responses API', async () => {
    const claude = await vendor(anthropicVendor(textScript('never')));
    const deepseek = await vendor(chatVendor(textScript('never')));
    const pipeline = createPipeline({
      endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }, { name: 'deepseek', provider: 'deepseek', baseUrl: deepseek.url, apiKey: VENDOR_KEY }],
      models: { chat: [{ endpoint: 'claude', model: 'claude-x' }, { endpoint: 'deepseek', model: 'deepseek-chat' }] },
      providers: [openaiProvider, anthropicProvider, ...vendorPresetProviders],
    });
    const { origin } = await startGateway(pipeline, { server: { exposeUpstream: true } });
    const cases: [body: Record<string, unknown>, param: string, what: RegExp][] = [
      [{ tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'file_search', vector_store_ids: ['vs_1'] }] }, 'tools[1]', /the hosted file_search tool/],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-abc', detail: 'auto' }] }] }, 'input[0].content[0]', /OpenAI file id/],
      [{ input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_old' }] }, 'input[1]', /item_reference/],
      [{ prompt: { id: 'pmpt_1' } }, 'prompt', /stored prompt/],
    ];
    for (const [extra, param, what] of cases) {
      const res = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'hi', ...extra }) });
      expect(res.status, param).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(res.json.error.message).toMatch(what);
      expect(res.json.error.message).toContain('claude/claude-x');
      expect(res.json.error.message).toContain('deepseek/deepseek-chat');
    }
    expect(claude.requests).toHaveLength(0);
    expect(deepseek.requests).toHaveLength(0);
  });
});
