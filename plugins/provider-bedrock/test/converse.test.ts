/** Bedrock models that are not Anthropic's, through Converse / ConverseStream against the fake Bedrock. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPipeline, toWireRequest, type ChatRequest, type Pipeline, type StreamPart } from '@switchyard/core';
import { createBedrockProvider } from '../src/index.js';
import { startFakeBedrock, type FakeBedrock } from './support/fake-bedrock.js';

const KEY = { accessKeyId: 'AKIDCONVERSE00001', secretAccessKey: 'converse/secret/0123' };
let fake: FakeBedrock;
let pipeline: Pipeline;
beforeEach(async () => {
  fake = await startFakeBedrock({ keys: { [KEY.accessKeyId]: { secretAccessKey: KEY.secretAccessKey } } });
  pipeline = createPipeline({
    endpoints: [{ name: 'bedrock-us', provider: 'bedrock', region: 'us-east-1', baseUrl: fake.url }],
    models: { nova: [{ endpoint: 'bedrock-us', model: 'us.amazon.nova-pro-v1:0' }] },
    providers: [createBedrockProvider({ source: () => async () => ({ ...KEY }) })],
  });
});
afterEach(async () => {
  await pipeline.close();
  await fake.close();
});

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const request: ChatRequest = {
  model: 'nova',
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } } as never] },
    { role: 'user', content: [{ type: 'text', text: 'Weather where this photo was taken?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'tooluse_00', type: 'function', function: { name: 'locate', arguments: '{"photo":1}' } }] },
    { role: 'tool', tool_call_id: 'tooluse_00', content: 'Oslo' },
  ],
  tools: [{ type: 'function', function: { name: 'lookup_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
  tool_choice: 'auto',
  max_tokens: 300,
  temperature: 0.2,
  stop: ['###'],
};

describe('Converse for every other Bedrock model', () => {
  it('sends system (with its cachePoint), images, tool use and results, inference config and tools', async () => {
    const answer = await pipeline.chat(request);
    const seen = fake.seen[0]!;
    expect(seen).toMatchObject({ operation: 'converse', model: 'us.amazon.nova-pro-v1:0', accessKeyId: KEY.accessKeyId });
    expect(seen.body).toEqual({
      system: [{ text: 'You are a weather bot.' }, { cachePoint: { type: 'default' } }],
      messages: [
        { role: 'user', content: [{ text: 'Weather where this photo was taken?' }, { image: { format: 'png', source: { bytes: PIXEL } } }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_00', name: 'locate', input: { photo: 1 } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_00', content: [{ text: 'Oslo' }] } }] },
      ],
      inferenceConfig: { maxTokens: 300, temperature: 0.2, stopSequences: ['###'] },
      toolConfig: { tools: [{ toolSpec: { name: 'lookup_weather', description: 'Weather for a city', inputSchema: { json: request.tools![0]!.function.parameters } } }], toolChoice: { auto: {} } },
    });
    expect(answer.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { content: 'Checking the weather.', tool_calls: [{ id: 'tooluse_01', function: { name: 'lookup_weather', arguments: '{"city":"Oslo"}' } }] } });
    expect(answer.usage).toEqual({ prompt_tokens: 70, completion_tokens: 12, total_tokens: 82, prompt_tokens_details: { cached_tokens: 30, cache_write_tokens: 0 } });
  });

  it('streams ConverseStream frames into text, tool-call and finish parts with the usage that follows messageStop', async () => {
    const parts: StreamPart[] = [];
    for await (const part of await pipeline.stream(request)) parts.push(part);
    expect(fake.seen[0]!.operation).toBe('converse-stream');
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text).join('')).toBe('Checking the weather.');
    expect(parts.filter((p) => p.type === 'tool-call-delta').map((p) => (p as { argumentsDelta: string }).argumentsDelta).join('')).toBe('{"city":"Oslo"}');
    expect(parts.find((p) => p.type === 'tool-call-delta')).toMatchObject({ index: 0, id: 'tooluse_01', name: 'lookup_weather' });
    expect(parts.find((p) => p.type === 'finish')).toMatchObject({ finishReason: 'tool_calls', usage: { prompt_tokens: 70, completion_tokens: 12 } });
  });

  it('refuses before any call what Converse has no form for', async () => {
    await expect(pipeline.chat({ model: 'nova', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }] })).rejects.toMatchObject({ status: 400 });
    expect(fake.seen).toHaveLength(0);
  });

  it('counts tokens with the Converse input', async () => {
    const provider = pipeline.providers.get('bedrock')!;
    const target = pipeline.candidatesFor('nova')[0]!;
    const wire = await toWireRequest(provider, target, provider.buildCountTokensRequest!(request, target));
    expect(wire.url).toBe(`${fake.url}/model/amazon.nova-pro-v1%3A0/count-tokens`);
    const res = await pipeline.transport.request({ ...wire, signal: new AbortController().signal });
    expect(res.status).toBe(200);
    expect(fake.seen[0]!.body).toMatchObject({ system: [{ text: 'You are a weather bot.' }, { cachePoint: { type: 'default' } }] });
  });
});
