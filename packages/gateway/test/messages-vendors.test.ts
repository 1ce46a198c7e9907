/**
 * POST /v1/messages through the official Anthropic SDK, answered by each vendor adapter behind
 * the gateway: Anthropic (the client's request and the vendor's answer pass through), OpenAI,
 * Gemini and an OpenAI-compatible preset (DeepSeek), JSON and streaming, with a whole tool
 * round trip (tool_use → tool_result → answer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { stopAll } from './support/harness.js';
import { hasToolResult, MODEL, pipelineOf, scriptedVendor, startMessagesGateway, VENDOR_KEYS, type VendorKind } from './support/messages.js';
import { GATEWAY_KEY } from './support/harness.js';

afterEach(stopAll);

const WEATHER_TOOL = { name: 'get_weather', description: 'Current weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };
const TOOL_CALL = { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Oslo', unit: 'celsius' } };

/** First leg: a tool call; second leg (a tool result came back): the answer. */
const weatherScript = (kind: VendorKind) => (body: unknown) => (hasToolResult(kind, body) ? { text: 'It is -3 °C in Oslo right now.' } : { text: 'Let me check.', tool: TOOL_CALL });

async function gatewayWith(kind: VendorKind) {
  const upstream = await scriptedVendor(kind, weatherScript(kind));
  const h = await startMessagesGateway(pipelineOf([{ name: kind, kind, url: upstream.url }]));
  return { ...h, upstream };
}

/** The tool's result, sent the way the SDK's users send it, after the assistant turn they got. */
function secondLeg(first: Anthropic.Message): Anthropic.MessageParam[] {
  const toolUse = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
  return [
    { role: 'user', content: 'What is the weather in Oslo?' },
    { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: [{ type: 'text', text: '{"temp":-3}' }] }] },
  ];
}

/** What each vendor must have received on the second leg: the tool call and its result in its own format. */
function expectToolResultSent(kind: VendorKind, body: any, toolUseId: string): void {
  if (kind === 'anthropic') {
    // The client's own body, model replaced.
    expect(body.model).toBe('claude-sonnet-4-5-20250929');
    expect(body.messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: '{"temp":-3}' }] });
  } else if (kind === 'gemini') {
    expect(body.contents[1].parts).toContainEqual(expect.objectContaining({ functionCall: { name: 'get_weather', args: TOOL_CALL.input } }));
    expect(body.contents[2].parts).toEqual([{ functionResponse: { name: 'get_weather', response: { temp: -3 } } }]);
  } else {
    expect(body.messages[1]).toMatchObject({ role: 'assistant', content: 'Let me check.', tool_calls: [{ id: toolUseId, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(TOOL_CALL.input) } }] });
    expect(body.messages[2]).toEqual({ role: 'tool', tool_call_id: toolUseId, content: '{"temp":-3}' });
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_TOOL.input_schema } }]);
    expect(body.max_completion_tokens).toBe(256);
  }
}

describe.each(['anthropic', 'openai', 'gemini', 'deepseek'] as const)('Messages answered by %s', (kind) => {
  it('answers a message (JSON) and a tool round trip', async () => {
    const { anthropic, upstream } = await gatewayWith(kind);
    const ask = { model: MODEL, max_tokens: 256, tools: [WEATHER_TOOL], messages: [{ role: 'user' as const, content: 'What is the weather in Oslo?' }] };
    const { data: first, response } = await anthropic.messages.create(ask).withResponse();
    expect(response.headers.get('x-switchyard-endpoint')).toBe(kind);
    expect(first).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'tool_use' });
    expect(first.content[0]).toEqual({ type: 'text', text: 'Let me check.' });
    const toolUse = first.content[1] as Anthropic.ToolUseBlock;
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: TOOL_CALL.input });
    expect(toolUse.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.usage.output_tokens).toBeGreaterThan(0);

    const second = await anthropic.messages.create({ ...ask, messages: secondLeg(first) });
    expect(second.content).toEqual([{ type: 'text', text: 'It is -3 °C in Oslo right now.' }]);
    expect(second.stop_reason).toBe('end_turn');
    expectToolResultSent(kind, JSON.parse(upstream.requests[1]!.body), toolUse.id);
    // The vendor got its own key, never the gateway key.
    expect(JSON.stringify(upstream.requests[1]!.headers)).toContain(VENDOR_KEYS[kind]);
    expect(JSON.stringify(upstream.requests)).not.toContain(GATEWAY_KEY);
  });

  it('streams the Messages events the SDK stream helper assembles, and a tool round trip', async () => {
    const { anthropic, upstream } = await gatewayWith(kind);
    const ask = { model: MODEL, max_tokens: 256, tools: [WEATHER_TOOL], messages: [{ role: 'user' as const, content: 'What is the weather in Oslo?' }] };
    const stream = anthropic.messages.stream(ask);
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type));
    const first = await stream.finalMessage();
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events).toContain('message_delta');
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(first.content[0]).toMatchObject({ text: 'Let me check.' });
    expect(first.content[1]).toMatchObject({ name: 'get_weather', input: TOOL_CALL.input });
    expect(first.usage.output_tokens).toBeGreaterThan(0);

    const toolUseId = (first.content[1] as Anthropic.ToolUseBlock).id;
    const second = await anthropic.messages.stream({ ...ask, messages: secondLeg(first) }).finalMessage();
    expect(second.content).toEqual([{ type: 'text', text: 'It is -3 °C in Oslo right now.' }]);
    expectToolResultSent(kind, JSON.parse(upstream.requests[1]!.body), toolUseId);
  });
});

describe('what other vendors receive of a Messages request', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  const rich = {
    model: MODEL,
    max_tokens: 1000,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'Use metric units.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/map.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two images.', signature: 'sig-abc' },
          { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'failed: timeout', is_error: true }, { type: 'text', text: 'Try again?' }] },
    ],
    tools: [WEATHER_TOOL],
    tool_choice: { type: 'any', disable_parallel_tool_use: true },
    stop_sequences: ['END'],
    temperature: 0.2,
    top_p: 0.9,
    top_k: 40,
    metadata: { user_id: 'user-42' },
    service_tier: 'auto',
    thinking: { type: 'enabled', budget_tokens: 2048 },
  };

  it('OpenAI: Chat Completions messages, tools and sampling; nothing Anthropic-only', async () => {
    const openai = await scriptedVendor('openai', () => ({ text: 'ok' }));
    const { anthropic } = await startMessagesGateway(pipelineOf([{ name: 'openai', kind: 'openai', url: openai.url }]));
    await anthropic.messages.create(rich as never);
    expect(JSON.parse(openai.requests[0]!.body)).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'You are terse.\nUse metric units.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/map.jpg' } },
          ],
        },
        // Reasoning and signed thinking are Anthropic's; OpenAI rejects them in a request.
        { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'failed: timeout' },
        { role: 'user', content: 'Try again?' },
      ],
      max_completion_tokens: 1000,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_TOOL.input_schema } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      stop: ['END'],
      temperature: 0.2,
      top_p: 0.9,
      user: 'user-42',
    });
  });

  it('DeepSeek keeps the reasoning of earlier turns; Gemini gets its own contents and config', async () => {
    const deepseek = await scriptedVendor('deepseek', () => ({ text: 'ok' }));
    const gemini = await scriptedVendor('gemini', () => ({ text: 'ok' }));
    await (await startMessagesGateway(pipelineOf([{ name: 'deepseek', kind: 'deepseek', url: deepseek.url }]))).anthropic.messages.create(rich as never);
    expect(JSON.parse(deepseek.requests[0]!.body).messages[2]).toMatchObject({ role: 'assistant', reasoning_content: 'Two images.' });

    await (await startMessagesGateway(pipelineOf([{ name: 'gemini', kind: 'gemini', url: gemini.url }]))).anthropic.messages.create(rich as never);
    const sent = JSON.parse(gemini.requests[0]!.body);
    expect(sent.systemInstruction).toEqual({ parts: [{ text: 'You are terse.\nUse metric units.' }] });
    expect(sent.contents.map((c: { role: string }) => c.role)).toEqual(['user', 'model', 'user', 'user']);
    expect(sent.contents[2].parts).toEqual([{ functionResponse: { name: 'get_weather', response: { result: 'failed: timeout' } } }]);
    expect(sent.generationConfig).toEqual({ temperature: 0.2, topP: 0.9, maxOutputTokens: 1000, stopSequences: ['END'] });
    expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
  });

  it('Anthropic gets it all as written: signatures, redacted thinking, is_error, cache_control, top_k, service_tier', async () => {
    const claude = await scriptedVendor('anthropic', () => ({ text: 'ok' }));
    await (await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]))).anthropic.messages.create(rich as never);
    expect(JSON.parse(claude.requests[0]!.body)).toEqual({ ...rich, model: 'claude-sonnet-4-5-20250929' });
  });
});
