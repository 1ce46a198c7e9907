/**
 * POST /v1/responses through the official `openai` SDK's `responses` client, against every
 * vendor adapter behind the gateway (OpenAI's own Responses API passed through, Anthropic,
 * Gemini, DeepSeek's Chat Completions), JSON and streaming, with a whole tool round trip; and
 * the failures of a committed stream: invisible failover before the first byte, a
 * `response.failed` ending after it, and continuation on a prefill-capable fallback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { createPipeline, VirtualClock, type DeploymentConfig, type Pipeline, type PipelineOptions } from '@switchyard/core';
import { cache } from '@switchyard/plugin-cache';
import { quota } from '@switchyard/plugin-quota';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiProvider } from '@switchyard/provider-gemini';
import { openaiProvider, vendorPresetProviders } from '@switchyard/provider-openai';
import { healthyText, startFaultServer, type FaultServer, type FaultServerOptions } from '@switchyard/simulate';
import { held, raw, startGateway, stopAll, vendor, VENDOR_KEY, type Handler } from './support/harness.js';
import { anthropicVendor, chatVendor, geminiVendor, responsesVendor, textScript, WEATHER_RESULT, weatherScript, type Script } from './support/scripted-vendors.js';

const faultServers: FaultServer[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(faultServers.splice(0).map((s) => s.close()));
});

async function faultServer(options: FaultServerOptions): Promise<FaultServer> {
  const server = await startFaultServer(options);
  faultServers.push(server);
  return server;
}

interface Upstream {
  name: string;
  provider: string;
  url: string;
  capabilities?: DeploymentConfig['capabilities'];
}

function pipelineOf(upstreams: Upstream[], extra: Partial<PipelineOptions> = {}): Pipeline {
  return createPipeline({
    endpoints: upstreams.map((u) => ({ name: u.name, provider: u.provider, baseUrl: u.url, apiKey: VENDOR_KEY })),
    models: { chat: upstreams.map((u) => ({ endpoint: u.name, model: `${u.name}-model`, ...(u.capabilities ? { capabilities: u.capabilities } : {}) })) },
    providers: [openaiProvider, anthropicProvider, geminiProvider, ...vendorPresetProviders],
    ...extra,
  });
}

/** Every event of a streamed response, as the SDK parsed them. */
async function eventsOf(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>): Promise<OpenAI.Responses.ResponseStreamEvent[]> {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function expectWellFormed(events: OpenAI.Responses.ResponseStreamEvent[]): void {
  expect(events[0]?.type).toBe('response.created');
  expect(events[1]?.type).toBe('response.in_progress');
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  expect(events.filter((e) => ['response.completed', 'response.incomplete', 'response.failed'].includes(e.type))).toHaveLength(1);
}

const textOf = (events: OpenAI.Responses.ResponseStreamEvent[]) => events.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');

interface VendorCase {
  name: string;
  provider: string;
  handler: (script: Script) => Handler;
  /** How the tool result looks in the vendor's own request. */
  toolResultOnWire: RegExp;
  /** The call id the client sees (Gemini has none: the provider makes one). */
  callId: RegExp;
  /** How the instructions look in the vendor's own request. */
  instructionsOnWire: RegExp;
}

const VENDORS: VendorCase[] = [
  { name: 'openai (Responses API, passed through)', provider: 'openai', handler: responsesVendor, callId: /^call_w1$/, toolResultOnWire: /"type":"function_call_output","call_id":"call_w1"/, instructionsOnWire: /"instructions":"Answer in one line."/ },
  { name: 'anthropic', provider: 'anthropic', handler: anthropicVendor, callId: /^call_w1$/, toolResultOnWire: /"type":"tool_result","tool_use_id":"call_w1"/, instructionsOnWire: /"system":"Answer in one line."/ },
  { name: 'gemini', provider: 'gemini', handler: geminiVendor, callId: /^call_/, toolResultOnWire: /"functionResponse":\{"name":"get_weather"/, instructionsOnWire: /"systemInstruction":\{"parts":\[\{"text":"Answer in one line."\}\]/ },
  { name: 'deepseek (Chat Completions)', provider: 'deepseek', handler: chatVendor, callId: /^call_w1$/, toolResultOnWire: /"role":"tool","tool_call_id":"call_w1"/, instructionsOnWire: /"role":"system","content":"Answer in one line."/ },
];

const weatherTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

describe.each(VENDORS)('POST /v1/responses answered by $name', (v) => {
  it('answers JSON: instructions reach the vendor its way, the SDK reads output_text and usage', async () => {
    const upstream = await vendor(v.handler(textScript('Hello ', 'from ', 'upstream.')));
    const { client } = await startGateway(pipelineOf([{ name: 'only', provider: v.provider, url: upstream.url }]));
    const { data: response, response: http } = await client.responses.create({ model: 'chat', instructions: 'Answer in one line.', input: 'Say hello.', max_output_tokens: 50, metadata: { run: 'r1' } }).withResponse();
    expect(http.headers.get('x-switchyard-endpoint')).toBe('only');
    expect(response).toMatchObject({ object: 'response', status: 'completed', error: null, metadata: { run: 'r1' } });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe('Hello from upstream.');
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.body).toMatch(v.instructionsOnWire);
  });

  it('streams typed events with sequence numbers: create({ stream: true }) and the stream helper', async () => {
    const upstream = await vendor(v.handler(textScript('Hel', 'lo ', 'there.')));
    const { client } = await startGateway(pipelineOf([{ name: 'only', provider: v.provider, url: upstream.url }]));
    const events = await eventsOf(await client.responses.create({ model: 'chat', input: 'Say hello.', stream: true }));
    expectWellFormed(events);
    expect(textOf(events)).toBe('Hello there.');
    const types = events.map((e) => e.type);
    for (const type of ['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) expect(types).toContain(type);
    expect(types.at(-1)).toBe('response.completed');
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });

    const final = await client.responses.stream({ model: 'chat', input: 'Say hello.' }).finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('Hello there.');
  });

  it('runs a tool round trip: a function_call item, then the function_call_output answered in the vendor’s own tool-result format', async () => {
    const upstream = await vendor(v.handler(weatherScript));
    const { client } = await startGateway(pipelineOf([{ name: 'only', provider: v.provider, url: upstream.url }]));
    const ask: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'What is the weather in Paris?' };

    // Turn 1, streamed: the model calls the tool.
    const stream = client.responses.stream({ model: 'chat', input: [ask], tools: [weatherTool], tool_choice: 'auto', parallel_tool_calls: false });
    const argumentDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => argumentDeltas.push(e.delta));
    const first = await stream.finalResponse();
    const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', call_id: expect.stringMatching(v.callId), name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(argumentDeltas.join('')).toBe('{"city":"Paris"}');
    expect(first.tools[0]).toMatchObject({ type: 'function', name: 'get_weather' });
    expect(upstream.requests[0]!.body).toContain('get_weather');

    // Turn 2, JSON: the client sends the call and its output back.
    const second = await client.responses.create({
      model: 'chat',
      tools: [weatherTool],
      input: [ask, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: WEATHER_RESULT }],
    });
    expect(second.output_text).toBe(`It is ${WEATHER_RESULT} in Paris.`);
    expect(upstream.requests[1]!.body).toMatch(v.toolResultOnWire);
  });
});

describe('failures of a Responses stream', () => {
  it('fails over invisibly before the first byte: the client sees only the backup’s answer', async () => {
    const primary = await faultServer({ vendor: 'openai', scenario: 'server-error' });
    const backup = await vendor(anthropicVendor(textScript('from ', 'the backup')));
    const { client } = await startGateway(pipelineOf([{ name: 'primary', provider: 'openai', url: primary.url }, { name: 'backup', provider: 'anthropic', url: backup.url }]));
    const { data: stream, response } = await client.responses.create({ model: 'chat', input: 'hi', stream: true }).withResponse();
    const events = await eventsOf(stream);
    expectWellFormed(events);
    expect(textOf(events)).toBe('from the backup');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(response.headers.get('x-switchyard-endpoint')).toBe('backup');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(primary.requests.map((r) => [r.path, r.outcome])).toEqual([['/v1/responses', 500]]);

    const json = await client.responses.create({ model: 'chat', input: 'hi' });
    expect(json.output_text).toBe('from the backup');
  });

  it('a failure after heartbeats, before any response existed, is an error event of the SDK’s shape', async () => {
    const down = held((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'down', type: 'server_error', code: null } }));
    });
    const slow = await vendor(down.handler);
    // Heartbeats run on the gateway's clock: one beats while the vendor holds the request.
    const clock = new VirtualClock();
    const { origin, client } = await startGateway(pipelineOf([{ name: 'only', provider: 'openai', url: slow.url }]), { clock, server: { heartbeatMs: 20 } });
    const failLate = async <T>(work: Promise<T>): Promise<T> => {
      await expect.poll(down.waiting, { timeout: 5_000, interval: 5 }).toBe(1);
      await clock.advance(20);
      down.release();
      return work;
    };
    const wire = await failLate(raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'hi', stream: true }) }));
    expect(wire.status).toBe(200);
    expect(wire.text.startsWith(': heartbeat\n\n')).toBe(true);
    const last = wire.text.trimEnd().split('\n\n').at(-1)!;
    expect(last.startsWith('event: error\ndata: ')).toBe(true);
    expect(JSON.parse(last.slice('event: error\ndata: '.length))).toEqual({ type: 'error', code: expect.any(String), message: expect.any(String), param: null, sequence_number: 0 });
    expect(wire.text).not.toContain('response.completed');
    // The stream helper rejects: there is no response to return.
    await expect(failLate(client.responses.stream({ model: 'chat', input: 'hi' }).finalResponse())).rejects.toThrow();
  });

  it('a stream cut after its first bytes ends with response.failed over what was sent, never response.completed', async () => {
    const primary = await faultServer({ vendor: 'openai', scenario: 'stream-cut', options: { afterTokens: 3 } });
    // A backup that cannot take a prefill cannot continue the answer.
    const backup = await vendor(anthropicVendor(textScript('never used')));
    const { client } = await startGateway(pipelineOf([{ name: 'primary', provider: 'openai', url: primary.url }, { name: 'backup', provider: 'anthropic', url: backup.url, capabilities: ['tools', 'stream'] }]));
    const events = await eventsOf(await client.responses.create({ model: 'chat', input: 'hi', stream: true }));
    expectWellFormed(events);
    expect(textOf(events)).toBe('The quick brown ');
    const last = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({ id: events[0]!.type === 'response.created' ? events[0].response.id : '', status: 'failed', error: { code: 'server_error' } });
    expect(last.response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(last.response.error!.message).toBe("the vendor's connection closed before the answer was complete");
    expect(last.response.error!.message).not.toContain(VENDOR_KEY);
    // The partial message is reported as incomplete, with the text the client received.
    expect(last.response.output).toEqual([expect.objectContaining({ id: 'msg_chaos1', type: 'message', status: 'incomplete', content: [expect.objectContaining({ text: 'The quick brown ' })] })]);
    expect(backup.requests).toHaveLength(0);

    // The stream helper reports the failure as the response's status.
    const final = await client.responses.stream({ model: 'chat', input: 'hi' }).finalResponse();
    expect(final.status).toBe('failed');
  });

  it('continues a cut stream on a prefill-capable fallback: one whole answer, in the items the vendor opened', async () => {
    const primary = await faultServer({ vendor: 'openai', scenario: 'stream-cut', options: { afterTokens: 3 } });
    // DeepSeek takes the partial answer as an assistant prefill and sends only the rest.
    const rest = healthyText().slice('The quick brown '.length);
    const backup = await vendor(chatVendor((body) => (body.includes('"role":"assistant","content":"The quick brown "') ? { text: rest.split(/(?<= )/) } : { text: ['wrong prefill'] })));
    const { client, origin } = await startGateway(pipelineOf([{ name: 'primary', provider: 'openai', url: primary.url }, { name: 'backup', provider: 'deepseek', url: backup.url, capabilities: ['tools', 'stream', 'prefill'] }]));
    const events = await eventsOf(await client.responses.create({ model: 'chat', input: 'hi', stream: true }));
    expectWellFormed(events);
    expect(textOf(events)).toBe(healthyText());
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(new Set(deltas.map((d) => d.item_id))).toEqual(new Set(['msg_chaos1']));
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.type).toBe('response.completed');
    // The gateway's id, from the head to the end (the vendor's resp_chaos1 never reaches the client).
    expect(completed.response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(completed.response.id).toBe((events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id);
    expect(completed.response.output_text ?? completed.response.output.map((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')).join('') : '')).join('')).toBe(healthyText());
    const done = events.find((e) => e.type === 'response.output_text.done') as OpenAI.Responses.ResponseTextDoneEvent;
    expect(done.text).toBe(healthyText());
    expect(backup.requests).toHaveLength(1);

    // Through the stream helper, the accumulated response is the same whole answer.
    const final = await client.responses.stream({ model: 'chat', input: 'hi' }).finalResponse();
    expect(final.output_text).toBe(healthyText());
    // The raw stream: the vendor's first events as it sent them, then ours.
    const wire = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'hi', stream: true }) });
    expect(wire.text).toContain('"obfuscation":"chaos0"');
    expect(wire.text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: response\.completed\n/);
  });
});

describe('the gateway’s response ids on a passed-through stream', () => {
  for (const keysReordered of [false, true]) {
    it(`replace the vendor's from the first event to the last${keysReordered ? ', its events’ keys in another order than OpenAI’s' : ''}`, async () => {
      const upstream = await vendor(responsesVendor(textScript('hello ', 'there'), 'gpt-upstream', { keysReordered }));
      const { client, origin } = await startGateway(pipelineOf([{ name: 'openai', provider: 'openai', url: upstream.url }]));
      const events = await eventsOf(await client.responses.create({ model: 'chat', input: 'hi', stream: true }));
      const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
      const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
      expect(created.response.id).toMatch(/^resp_[0-9a-f]{32}$/);
      expect(completed.response.id).toBe(created.response.id);
      expect(textOf(events)).toBe('hello there');
      // The raw stream: the vendor's bytes but for the id (its key order kept).
      const wire = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'hi', stream: true }) });
      expect(wire.text).not.toContain('resp_vendor1');
      expect(wire.text.includes('data: {"sequence_number":0,"type":"response.created"')).toBe(keysReordered);
    });
  }
});

describe('the pipeline’s plugins apply to Responses requests as to any other', () => {
  it('the response cache answers a repeated request (JSON and stream, a passed-through answer re-encoded), and the ledger counts the tokens', async () => {
    const upstream = await vendor(responsesVendor(textScript('cached ', 'answer')));
    const pipeline = pipelineOf([{ name: 'openai', provider: 'openai', url: upstream.url }], { plugins: [cache({ ttlMs: 60_000 }), quota({ ledger: {} })] });
    const { client, origin } = await startGateway(pipeline);
    const first = await client.responses.create({ model: 'chat', input: 'same question' });
    const again = await client.responses.create({ model: 'chat', input: 'same question' });
    expect(again.output_text).toBe('cached answer');
    expect(again.id).not.toBe(first.id);
    const streamed = await client.responses.stream({ model: 'chat', input: 'same question' }).finalResponse();
    expect(streamed.output_text).toBe('cached answer');
    expect(upstream.requests).toHaveLength(1);
    // A request with a hosted tool differs from the unified one only in that tool: it is never served from the cache.
    await client.responses.create({ model: 'chat', input: 'same question', tools: [{ type: 'web_search' }] });
    expect(upstream.requests).toHaveLength(2);
    const usage = await raw(origin, '/switchyard/usage', { method: 'GET' });
    expect(usage.json.total).toMatchObject({ billed: { inputTokens: 22, outputTokens: 14 } });
  });

  it('structured output: text.format json_schema reaches a Chat Completions vendor as response_format, and the SDK parses the answer', async () => {
    const upstream = await vendor(chatVendor(textScript('{"city":', '"Paris","temp":18}')));
    const { client } = await startGateway(pipelineOf([{ name: 'deepseek', provider: 'deepseek', url: upstream.url }]));
    const schema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } }, required: ['city', 'temp'], additionalProperties: false };
    const parsed = await client.responses.parse({ model: 'chat', input: 'Weather?', text: { format: { type: 'json_schema', name: 'weather', schema, strict: true } } });
    expect(parsed.output_parsed).toEqual({ city: 'Paris', temp: 18 });
    expect(JSON.parse(upstream.requests[0]!.body).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } });
  });
});
