/**
 * Reasoning through the Responses API: `reasoning.effort` reaches every vendor its own way,
 * reasoning output is a reasoning item (streamed as `response.reasoning_text.*` events), and
 * the vendor state a tool loop needs back (Anthropic's signed thinking) travels in the answer's
 * last reasoning item, so a client that sends the output back, or continues with
 * `previous_response_id`, gets it to the vendor again; OpenAI never sees such items.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { createPipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider, vendorPresetProviders } from '@switchyard/provider-openai';
import { startGateway, stopAll, vendor, VENDOR_KEY, type Loopback } from './support/harness.js';
import { anthropicVendor, chatVendor, responsesVendor, textScript, WEATHER_RESULT, weatherScript, type Script } from './support/scripted-vendors.js';

afterEach(stopAll);

const SIGNATURE = 'EqQBCgIYAhIM-signed-by-anthropic';
/** The weather script, thinking (signed) before it calls the tool. */
const thinkingWeather: Script = (body) => {
  const turn = weatherScript(body);
  return 'call' in turn ? { ...turn, reasoning: ['The user wants ', 'the weather.'], signature: SIGNATURE } : turn;
};

const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];

async function gatewayFor(claude: Loopback, others: { deepseek?: Loopback; openai?: Loopback } = {}) {
  const endpoints = [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }];
  const models: Record<string, { endpoint: string; model: string }[]> = { claude: [{ endpoint: 'claude', model: 'claude-x' }] };
  if (others.deepseek) {
    endpoints.push({ name: 'deepseek', provider: 'deepseek', baseUrl: others.deepseek.url, apiKey: VENDOR_KEY });
    models.deepseek = [{ endpoint: 'deepseek', model: 'deepseek-reasoner' }];
  }
  if (others.openai) {
    endpoints.push({ name: 'openai', provider: 'openai', baseUrl: others.openai.url, apiKey: VENDOR_KEY });
    models.gpt = [{ endpoint: 'openai', model: 'gpt-x' }];
  }
  return startGateway(createPipeline({ endpoints, models, providers: [openaiProvider, anthropicProvider, ...vendorPresetProviders] }));
}

const body = (server: Loopback, i: number) => JSON.parse(server.requests[i]!.body);

describe('reasoning through /v1/responses', () => {
  it('reasoning.effort becomes each vendor’s own setting; reasoning output is a reasoning item, streamed as reasoning_text events', async () => {
    const claude = await vendor(anthropicVendor(textScript('ok')));
    const deepseek = await vendor(chatVendor(() => ({ text: ['42.'], reasoning: ['Six ', 'times seven.'] })));
    const { client } = await gatewayFor(claude, { deepseek });

    await client.responses.create({ model: 'claude', input: 'hi', reasoning: { effort: 'high' } });
    expect(body(claude, 0).thinking).toMatchObject({ type: 'enabled', budget_tokens: expect.any(Number) });

    const stream = client.responses.stream({ model: 'deepseek', input: 'Six times seven?', reasoning: { effort: 'high' } });
    const thoughts: string[] = [];
    stream.on('response.reasoning_text.delta', (e) => thoughts.push(e.delta));
    const final = await stream.finalResponse();
    expect(body(deepseek, 0).reasoning_effort).toBe('high');
    expect(thoughts).toEqual(['Six ', 'times seven.']);
    expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(final.output[0]).toMatchObject({ type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Six times seven.' }] });
    expect(final.output_text).toBe('42.');

    const json = await client.responses.create({ model: 'deepseek', input: 'Six times seven?' });
    expect(json.output[0]).toMatchObject({ type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Six times seven.' }] });
  });

  it('a signed thinking block survives a tool loop: sent back with the output (stream and JSON), and through previous_response_id', async () => {
    const claude = await vendor(anthropicVendor(thinkingWeather));
    const { client } = await gatewayFor(claude);
    const ask = { role: 'user' as const, content: 'Weather in Paris?' };
    const thinkingBack = (i: number) => body(claude, i).messages[1].content[0];
    let turn = 0;

    for (const stream of [true, false]) {
      const first = stream
        ? await client.responses.stream({ model: 'claude', input: [ask], tools, reasoning: { effort: 'medium' } }).finalResponse()
        : await client.responses.create({ model: 'claude', input: [ask], tools, reasoning: { effort: 'medium' } });
      // reasoning (the thinking text), the call, then the item carrying the signed block.
      expect(first.output.map((o) => o.type)).toEqual(['reasoning', 'function_call', 'reasoning']);
      expect(first.output[2]).toMatchObject({ type: 'reasoning', summary: [], encrypted_content: expect.stringMatching(/^switchyard\.v1:/) });
      const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
      const second = await client.responses.create({ model: 'claude', tools, reasoning: { effort: 'medium' }, input: [ask, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: WEATHER_RESULT }] });
      expect(second.output_text).toContain(WEATHER_RESULT);
      turn += 2;
      expect(thinkingBack(turn - 1)).toEqual({ type: 'thinking', thinking: 'The user wants the weather.', signature: SIGNATURE });
    }

    const stored = await client.responses.create({ model: 'claude', input: [ask], tools, reasoning: { effort: 'medium' }, store: true });
    const call = stored.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    await client.responses.create({ model: 'claude', tools, reasoning: { effort: 'medium' }, previous_response_id: stored.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: WEATHER_RESULT }] });
    expect(thinkingBack(turn + 1)).toEqual({ type: 'thinking', thinking: 'The user wants the weather.', signature: SIGNATURE });
  });

  it('OpenAI never receives the reasoning items of other vendors (it could not take them back with store: false)', async () => {
    const claude = await vendor(anthropicVendor(thinkingWeather));
    const openai = await vendor(responsesVendor(weatherScript));
    const { client } = await gatewayFor(claude, { openai });
    const first = await client.responses.create({ model: 'claude', input: 'Weather in Paris?', tools, store: true });
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const output = { type: 'function_call_output' as const, call_id: call.call_id, output: WEATHER_RESULT };

    // Continued on OpenAI from the store, and with the client sending the output back itself.
    await client.responses.create({ model: 'gpt', tools, previous_response_id: first.id, input: [output] });
    await client.responses.create({ model: 'gpt', tools, input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), output] });
    for (const i of [0, 1]) {
      const input = body(openai, i).input as { type?: string; id?: string }[];
      expect(input.map((item) => item.type ?? 'message')).toEqual(['message', 'function_call', 'function_call_output']);
    }
    expect(body(openai, 0).input[1]).not.toHaveProperty('id');
  });
});
