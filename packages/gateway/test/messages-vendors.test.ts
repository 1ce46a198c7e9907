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
