/**
 * Responses state: stateless by default; with `store: true` a response can be fetched
 * (`GET /v1/responses/{id}`, its input items), deleted, and continued with
 * `previous_response_id`, which the gateway expands into the request before routing, so a
 * conversation started on one vendor continues on any other. Entries expire after
 * `server.responseTtlMs` on the pipeline's clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI, { NotFoundError } from 'openai';
import { createPipeline, VirtualClock, type Pipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider } from '@switchyard/provider-openai';
import { ResponseStore, type StoredResponse } from '@switchyard/provider-openai/dialect';
import { raw, startGateway, stopAll, vendor, VENDOR_KEY, type Loopback } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';
import { anthropicVendor, responsesVendor, textScript, WEATHER_RESULT, weatherScript, type Script } from './support/scripted-vendors.js';

afterEach(stopAll);

/** A logical model per vendor: `claude` (Anthropic) and `gpt` (OpenAI's Responses API). */
async function twoVendors(script: Script, clock?: VirtualClock): Promise<{ claude: Loopback; openai: Loopback; pipeline: Pipeline }> {
  const claude = await vendor(anthropicVendor(script));
  const openai = await vendor(responsesVendor(script));
  const pipeline = createPipeline({
    endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }, { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }],
    models: { claude: [{ endpoint: 'claude', model: 'claude-x' }], gpt: [{ endpoint: 'openai', model: 'gpt-x' }] },
    providers: [openaiProvider, anthropicProvider],
    ...(clock ? { clock } : {}),
  });
  return { claude, openai, pipeline };
}

const sent = (server: Loopback, i: number) => JSON.parse(server.requests[i]!.body);

/** The record the gateway stored for `id` (the config's keys' own), read as the gateway reads it. */
const storedIn = (pipeline: Pipeline, id: string): Promise<StoredResponse | undefined> => new ResponseStore(pipeline.store, pipeline.clock, 60_000, undefined, { maxBytesPerKey: 1e9, maxBytes: 1e9 }).load(id);

describe('stored responses', () => {
  it('are not kept with store: false: GET is a 404 in the OpenAI error shape', async () => {
    const { pipeline } = await twoVendors(textScript('hi'));
    const { client, origin } = await startGateway(pipeline);
    const response = await client.responses.create({ model: 'claude', input: 'hi', store: false });
    expect((response as unknown as { store: boolean }).store).toBe(false);
    await expect(client.responses.retrieve(response.id)).rejects.toBeInstanceOf(NotFoundError);
    const res = await raw(origin, `/v1/responses/${response.id}`, { method: 'GET' });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'response_not_found' });
    const continued = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'claude', input: 'more', previous_response_id: response.id }) });
    expect(continued.status).toBe(400);
    expect(continued.json.error).toMatchObject({ type: 'invalid_request_error', code: 'previous_response_not_found', param: 'previous_response_id' });
    expect(continued.json.error.message).toContain(response.id);
  });

  it('with store: true, GET returns it, input_items lists what led to it, previous_response_id continues it on another vendor', async () => {
    const { claude, openai, pipeline } = await twoVendors(textScript('Paris.'));
    const { client } = await startGateway(pipeline);
    const first = await client.responses.create({ model: 'claude', instructions: 'Be terse.', input: 'Capital of France?', store: true });
    expect(first).toMatchObject({ output_text: 'Paris.' });
    expect((first as unknown as { store: boolean }).store).toBe(true);
    expect(await client.responses.retrieve(first.id)).toMatchObject({ id: first.id, output_text: 'Paris.', instructions: 'Be terse.' });
    const items = await client.responses.inputItems.list(first.id);
    expect(items.data).toEqual([expect.objectContaining({ type: 'message', role: 'user', content: 'Capital of France?', id: expect.stringMatching(/^msg_/) })]);

    // The next turn goes to OpenAI, which never saw the first: it gets the whole conversation, and the client's own store.
    const second = await client.responses.create({ model: 'gpt', input: 'And of Italy?', previous_response_id: first.id, store: true });
    expect(second.output_text).toBe('Paris.');
    const upstream = sent(openai, 0);
    expect(upstream.previous_response_id).toBeUndefined();
    expect(upstream.store).toBe(true);
    expect(upstream.instructions).toBeUndefined(); // instructions are not carried over, as with OpenAI
    expect(upstream.input).toEqual([
      { type: 'message', role: 'user', content: 'Capital of France?' },
      { type: 'message', status: 'completed', role: 'assistant', content: [expect.objectContaining({ type: 'output_text', text: 'Paris.' })] },
      { type: 'message', role: 'user', content: 'And of Italy?' },
    ]);

    // And a third on Anthropic again: the conversation of both earlier turns, in its own format.
    await client.responses.create({ model: 'claude', input: 'And of Spain?', previous_response_id: second.id });
    const turns = (sent(claude, 1).messages as { role: string; content: { text: string }[] }[]).map((m) => `${m.role}: ${m.content.map((b) => b.text).join('')}`);
    expect(turns).toEqual(['user: Capital of France?', 'assistant: Paris.', 'user: And of Italy?', 'assistant: Paris.', 'user: And of Spain?']);
    const page = await client.responses.inputItems.list(second.id, { order: 'asc', limit: 2 });
    expect(page.data.map((i) => i.type)).toEqual(['message', 'message']);
    expect(page.has_more).toBe(true);
  });

  it('a streamed response is stored before its response.completed reaches the client, under the id the client saw', async () => {
    const { pipeline } = await twoVendors(textScript('one ', 'two'));
    const { client } = await startGateway(pipeline);
    for (const model of ['claude', 'gpt']) {
      const stream = await client.responses.create({ model, input: 'count', stream: true, store: true });
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        // Fetched the moment the event arrives: the gateway stored it before writing the event.
        if (event.type === 'response.completed') completed = await client.responses.retrieve(event.response.id);
      }
      expect(completed).toMatchObject({ status: 'completed', output_text: 'one two' });
    }
  });

  it('continues a tool loop: previous_response_id plus the function_call_output is all the client sends', async () => {
    const { claude, pipeline } = await twoVendors(weatherScript);
    const { client } = await startGateway(pipeline);
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const first = await client.responses.stream({ model: 'claude', input: 'Weather in Paris?', tools, store: true }).finalResponse();
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: 'get_weather', call_id: 'call_w1' });
    const second = await client.responses.create({ model: 'claude', tools, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: WEATHER_RESULT }] });
    expect(second.output_text).toBe(`It is ${WEATHER_RESULT} in Paris.`);
    const messages = sent(claude, 1).messages;
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatchObject({ role: 'user' });
    expect(JSON.stringify(messages[0])).toContain('Weather in Paris?');
    expect(messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }] });
    expect(messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_w1', content: WEATHER_RESULT }] });
  });

  it('a passed-through answer is stored under the gateway’s id, the vendor’s id beside it with the deployment that issued it (JSON and stream)', async () => {
    const { pipeline } = await twoVendors(textScript('kept'));
    const { client } = await startGateway(pipeline);
    const json = await client.responses.create({ model: 'gpt', input: 'hi', store: true });
    const streamed = await client.responses.stream({ model: 'gpt', input: 'hi', store: true }).finalResponse();
    for (const id of [json.id, streamed.id]) {
      expect(id).not.toBe('resp_vendor1');
      const record = await storedIn(pipeline, id);
      expect(record).toMatchObject({ response: { id }, vendor: { id: 'resp_vendor1', deployment: 'openai/gpt-x' } });
    }
    // An answer the gateway wrote (another vendor's) has no vendor id to keep.
    const translated = await client.responses.create({ model: 'claude', input: 'hi', store: true });
    expect((await storedIn(pipeline, translated.id))?.vendor).toBeUndefined();
  });

  it('DELETE removes it', async () => {
    const { pipeline } = await twoVendors(textScript('bye'));
    const { client, origin } = await startGateway(pipeline);
    const response = await client.responses.create({ model: 'gpt', input: 'hi', store: true });
    // Passed through from OpenAI, it is stored under the gateway's id, never OpenAI's.
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    await expect(client.responses.retrieve('resp_vendor1')).rejects.toBeInstanceOf(NotFoundError);
    const deleted = await raw(origin, `/v1/responses/${response.id}`, { method: 'DELETE' });
    expect(deleted.json).toEqual({ id: response.id, object: 'response.deleted', deleted: true });
    await expect(client.responses.retrieve(response.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.responses.delete(response.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('expire after server.responseTtlMs on the pipeline’s clock', async () => {
    const clock = new VirtualClock();
    const { pipeline } = await twoVendors(textScript('soon gone'), clock);
    const { client, origin } = await startGateway(pipeline, { server: { responseTtlMs: 60_000 } });
    const response = await client.responses.create({ model: 'claude', input: 'hi', store: true });
    await clock.advance(59_999);
    expect((await client.responses.retrieve(response.id)).output_text).toBe('soon gone');
    await clock.advance(1);
    await expect(client.responses.retrieve(response.id)).rejects.toBeInstanceOf(NotFoundError);
    const continued = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'claude', input: 'more', previous_response_id: response.id }) });
    expect(continued.status).toBe(400);
    expect(continued.json.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id' });
    expect(continued.json.error.message).toMatch(/expired after 1m,/);
  });

  it('answers bad ids and unknown sub-resources cleanly', async () => {
    const { pipeline } = await twoVendors(textScript('x'));
    const { origin, client } = await startGateway(pipeline);
    const stored = await client.responses.create({ model: 'claude', input: 'hi', store: true });
    const cases: [method: string, path: string, status: number][] = [
      ['GET', '/v1/responses/%E0%A4%A', 400],
      ['GET', `/v1/responses/${'x'.repeat(300)}`, 404],
      ['GET', '/v1/responses/resp_nope/input_items', 404],
      ['GET', `/v1/responses/${stored.id}/cancel`, 404],
      ['GET', `/v1/responses/${stored.id}/input_items?limit=0`, 400],
      ['GET', `/v1/responses/${stored.id}/input_items?order=sideways`, 400],
      ['GET', `/v1/responses/${stored.id}/input_items?after=msg_unknown`, 400],
      ['POST', `/v1/responses/${stored.id}`, 405],
      ['PUT', '/v1/responses', 405],
    ];
    for (const [method, path, status] of cases) {
      const res = await raw(origin, path, { method });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(res.json.error.type, `${method} ${path}`).toBe('invalid_request_error');
    }
  });

  it('an answer kept by default past the store\'s cap still reaches the client; the failure is warned of once a minute, with the count since', async () => {
    const clock = new VirtualClock();
    const { pipeline } = await twoVendors(textScript('not kept'), clock);
    const logs = recordingLogger();
    // Every answer is larger than the cap: none can be kept.
    const { client, origin } = await startGateway(pipeline, { logger: logs, server: { responseStore: { maxBytesPerKey: 10, maxBytes: 10, maxConversationBytes: 1_000_000 } } });
    const warnings = () => logs.lines.filter((line) => line.event === 'response_store_failed');
    /** A turn that continues from `id`: it waits for this gateway's pending writes, then finds nothing. */
    const settled = async (id: string) => expect((await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'claude', input: 'more', previous_response_id: id }) })).status).toBe(400);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await client.responses.create({ model: 'claude', input: `turn ${i}` });
      expect(response.output_text).toBe('not kept');
      ids.push(response.id);
    }
    await settled(ids[3]!);
    expect(warnings()).toEqual([expect.objectContaining({ level: 'warn', errorCode: 'SWITCHYARD_ERR_RESPONSE_STORE_FULL', requestId: expect.any(String) })]);
    expect(warnings()[0]!.error).toContain('server.responseStore.maxBytesPerKey');
    await clock.advance(60_000);
    await client.responses.create({ model: 'claude', input: 'a minute later' });
    await settled(ids[3]!);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toMatchObject({ errorCode: 'SWITCHYARD_ERR_RESPONSE_STORE_FULL', unloggedSince: 3 });
  });
});
