import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '@switchyard/core';
import { anthropicRig, cassette, fixtureJson, json, reframe, fixtureText, sse, type TestRig } from '../test/support.js';

let rig: TestRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const textAnswer = () => json(200, fixtureJson('anthropic-text.json'));

/** Sends `request` through the pipeline and returns the body and headers the vendor received. */
async function sent(request: Partial<ChatRequest> & Pick<ChatRequest, 'messages'>, endpoint = {}) {
  rig = await anthropicRig([textAnswer()], endpoint);
  await rig.pipeline.chat({ model: 'chat', ...request });
  const received = rig.servers[0]!.requests[0]!;
  return { body: JSON.parse(received.body), headers: received.headers, path: received.path };
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('request translation', () => {
  it('translates a whole tool conversation (system extraction, images, tool round trip, result merging, headers)', async () => {
    const { body, headers, path } = await sent({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in these two places?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/map.jpg', detail: 'high' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'now', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '-3 C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '12:00' }] },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [
        { type: 'function', function: { name: 'weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
        { type: 'function', function: { name: 'now' } },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      user: 'user-42',
      max_tokens: 300,
    });
    expect(path).toBe('/v1/messages');
    expect(headers['x-api-key']).toBe('sk-ant-test-key-a-0123456789abcdef');
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(headers['content-type']).toBe('application/json');
    expect(headers.authorization).toBeUndefined();
    expect(body).toEqual({
      model: 'claude-a',
      max_tokens: 300,
      system: 'You are terse.\n\nUse metric units.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in these two places?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/map.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking both.' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_2', name: 'now', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '-3 C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '12:00' }] },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [
        { name: 'weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        { name: 'now', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
    });
  });

  it('matches the request a real client sent in the recorded cassette', async () => {
    const [interaction] = cassette('pydantic-ai__test_request_stream_fallback_for_high_max_tokens.yaml');
    rig = await anthropicRig([sse(interaction!.response.body!.string)]);
    const recorded = interaction!.request.parsed_body as Record<string, unknown>;
    await (await rig.pipeline.stream({ model: 'chat', max_tokens: 32000, messages: [{ role: 'user', content: 'What is 1+1? Answer with just the number.' }] })).collect();
    expect(JSON.parse(rig.servers[0]!.requests[0]!.body)).toEqual({ ...recorded, model: 'claude-a' });
  });

  it('max_tokens: defaults to 4096, prefers max_completion_tokens, honours the endpoint option', async () => {
    expect((await sent({ messages: [{ role: 'user', content: 'x' }] })).body.max_tokens).toBe(4096);
    await rig!.close();
    expect((await sent({ messages: [{ role: 'user', content: 'x' }], max_tokens: 10, max_completion_tokens: 20 })).body.max_tokens).toBe(20);
    await rig!.close();
    expect((await sent({ messages: [{ role: 'user', content: 'x' }] }, { options: { maxTokens: 1000 } })).body.max_tokens).toBe(1000);
  });

  it('merges consecutive same-role turns and trims a trailing assistant prefill', async () => {
    const { body } = await sent({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'The answer is ' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'The answer is' }] },
    ]);
    expect(body.system).toBeUndefined();
  });

  it('drops a whitespace-only trailing assistant turn instead of sending an empty prefill', async () => {
    const { body } = await sent({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: ' \n' }] });
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'x' }] }]);
  });

  it('sends signed thinking blocks back first on the assistant turn and drops unsigned ones', async () => {
    const { body } = await sent({
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'I should call the tool.',
          providerMetadata: { anthropic: { thinkingBlocks: [{ type: 'thinking', thinking: 'I should call the tool.', signature: 'EvMC-sig' }, { type: 'thinking', thinking: 'unsigned', signature: '' }, { type: 'redacted_thinking', data: 'opaque' }] } },
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: { name: 'weather' } }],
    });
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should call the tool.', signature: 'EvMC-sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} },
      ],
    });
  });

  it('a streamed tool call, sent back with its result, round-trips', async () => {
    rig = await anthropicRig([sse(reframe(fixtureText('anthropic-json-tool.1.chunks.txt'))), textAnswer()]);
    const first = await (await rig.pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'weather' }], tools: [{ type: 'function', function: { name: 'json' } }] })).collect();
    const call = first.choices[0]!.message.tool_calls![0]!;
    await rig.pipeline.chat({
      model: 'chat',
      messages: [{ role: 'user', content: 'weather' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'ok' }],
      tools: [{ type: 'function', function: { name: 'json' } }],
    });
    const second = JSON.parse(rig.servers[0]!.requests[1]!.body);
    expect(second.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json', input: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', content: 'ok' }] },
    ]);
  });

  it('a base64 PDF data URL becomes a document block', async () => {
    const { body } = await sent({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:application/pdf;base64,JVBERi0=' } }] }] });
    expect(body.messages[0].content).toEqual([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }]);
  });

  it('file parts become document blocks (a PDF as base64, plain text as a text source, the filename as title); a failed tool result keeps is_error', async () => {
    const text = Buffer.from('Plain notes.').toString('base64');
    const { body } = await sent({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'report.pdf' } },
            { type: 'file', file: { file_data: `data:text/plain;base64,${text}` } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_9', type: 'function', function: { name: 'run', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'toolu_9', content: 'exit 1', providerMetadata: { anthropic: { isError: true } } },
      ],
    });
    expect(body.messages[0].content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'report.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' } },
    ]);
    expect(body.messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'exit 1', is_error: true }]);
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    [{ type: 'function', function: { name: 'weather' } }, { type: 'tool', name: 'weather' }],
  ] as const)('tool_choice %j → %j', async (choice, expected) => {
    const { body } = await sent({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'weather' } }], tool_choice: choice });
    expect(body.tool_choice).toEqual(expected);
  });

  it('reasoning_effort turns thinking on and leaves out sampling overrides Anthropic rejects with it', async () => {
    const { body } = await sent({ messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'medium', temperature: 0.3 });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body.max_tokens).toBe(4096 + 4096);
    expect(body.temperature).toBeUndefined();
  });

  it('response_format becomes an instruction in the system prompt', async () => {
    const { body } = await sent({
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object' } } },
    });
    expect(body.system).toBe('Be brief.\n\nRespond with a single JSON object matching this JSON schema: {"type":"object"} and nothing else.');
  });

  it.each([
    [{ role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{not json' } }] }, 'messages[1].tool_calls[0].function.arguments', 'SWITCHYARD_ERR_INVALID_REQUEST'],
    [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] }, 'messages[1].content[0].image_url.url', 'SWITCHYARD_ERR_INVALID_REQUEST'],
    // What Anthropic has no input for is refused before routing, naming the target.
    [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }, 'messages[1].content[0]', 'SWITCHYARD_ERR_UNEXPRESSIBLE'],
    [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/msword;base64,AAAA', filename: 'a.doc' } }] }, 'messages[1].content[0].file', 'SWITCHYARD_ERR_UNEXPRESSIBLE'],
    [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }, 'messages[1].content[0].file', 'SWITCHYARD_ERR_UNEXPRESSIBLE'],
  ] as const)('bad input fails with a coded error naming the path, before any upstream call (%#)', async (bad, path, code) => {
    rig = await anthropicRig([textAnswer()]);
    const error = await rig.pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'x' }, bad as never] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid-request', code, path });
    expect(rig.servers[0]!.requests).toHaveLength(0);
  });
});
