import { afterEach, describe, expect, it } from 'vitest';
import { anthropicRig, fixtureJson, json, type TestRig } from '../test/support.js';

let rig: TestRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

async function chatAgainst(body: unknown) {
  rig = await anthropicRig([json(200, body)]);
  return rig.pipeline.chat(ask);
}

describe('non-streaming responses', () => {
  it('anthropic-text.json: text, end_turn, usage', async () => {
    const r = await chatAgainst(fixtureJson('anthropic-text.json'));
    expect(r).toMatchObject({
      id: 'msg_01VdEjxAP5ahtHKrrRdNBteQ',
      object: 'chat.completion',
      model: 'claude-sonnet-4-5-20250929',
      choices: [{ index: 0, message: { role: 'assistant', content: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 29, total_tokens: 41, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
      switchyard: { endpoint: 'a', provider: 'anthropic', attempts: 1 },
    });
    expect(r.choices[0]!.message.tool_calls).toBeUndefined();
    expect(r.providerMetadata).toEqual({ anthropic: { stopReason: 'end_turn' } });
  });

  it('anthropic-json-tool.1.json: tool_use input becomes JSON arguments; content is null', async () => {
    const r = await chatAgainst(fixtureJson('anthropic-json-tool.1.json'));
    const message = r.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls![0]).toMatchObject({ id: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa', type: 'function', function: { name: 'json' } });
    expect(JSON.parse(message.tool_calls![0]!.function.arguments).elements).toHaveLength(4);
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
    expect(r.usage).toMatchObject({ prompt_tokens: 1151, completion_tokens: 87, total_tokens: 1238 });
  });

  it('anthropic-tool-no-args.json: text plus a tool call whose arguments are "{}"', async () => {
    const r = await chatAgainst(fixtureJson('anthropic-tool-no-args.json'));
    const message = r.choices[0]!.message;
    expect(message.content).toMatch(/^<thinking>\nThe updateIssueList tool/);
    expect(message.tool_calls).toEqual([{ id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', type: 'function', function: { name: 'updateIssueList', arguments: '{}' } }]);
    expect(r.model).toBe('claude-3-opus-20240229');
  });

  it('thinking blocks become reasoning_content; signed blocks are kept for the next turn', async () => {
    const r = await chatAgainst({
      id: 'msg_t',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'Let me add. ', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Four.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 20 },
    });
    const message = r.choices[0]!.message;
    expect(message.content).toBe('Four.');
    expect(message.reasoning_content).toBe('Let me add. ');
    const blocks = [{ type: 'thinking', thinking: 'Let me add. ', signature: 'sig-1' }, { type: 'redacted_thinking', data: 'opaque' }];
    expect(message.providerMetadata).toEqual({ anthropic: { thinkingBlocks: blocks } });
    expect(r.providerMetadata?.anthropic).toMatchObject({ thinkingBlocks: blocks });
  });

  it('cache reads and writes are added back into prompt_tokens and reported as cached', async () => {
    const r = await chatAgainst({
      id: 'msg_c',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 5 },
    });
    expect(r.usage).toEqual({ prompt_tokens: 130, completion_tokens: 5, total_tokens: 135, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 } });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'other'],
    ['something_new', 'other'],
  ])('stop_reason %s → finish_reason %s', async (stopReason, finish) => {
    const r = await chatAgainst({ id: 'm', model: 'c', content: [{ type: 'text', text: 'x' }], stop_reason: stopReason, stop_sequence: stopReason === 'stop_sequence' ? 'END' : null });
    expect(r.choices[0]!.finish_reason).toBe(finish);
    expect(r.providerMetadata?.anthropic?.stopReason).toBe(stopReason);
    if (stopReason === 'stop_sequence') expect(r.providerMetadata?.anthropic?.stopSequence).toBe('END');
  });

  it('a refusal carries the explanation as message.refusal', async () => {
    const r = await chatAgainst({ id: 'm', model: 'c', content: [], stop_reason: 'refusal', stop_details: { type: 'refusal', category: 'cyber', explanation: 'Blocked under the usage policy.' } });
    expect(r.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: '', refusal: 'Blocked under the usage policy.' } });
  });

  it('unknown block types are ignored', async () => {
    const r = await chatAgainst({
      id: 'm',
      model: 'c',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'text', text: 'answer' },
      ],
      stop_reason: 'end_turn',
    });
    expect(r.choices[0]!.message).toEqual({ role: 'assistant', content: 'answer' });
  });

  it('a 200 body that is not a Message is a server error, not a crash', async () => {
    rig = await anthropicRig([json(200, { hello: 'world' }), json(200, fixtureJson('anthropic-text.json'))]);
    const r = await rig.pipeline.chat(ask);
    expect(r.switchyard?.endpoint).toBe('b');
    expect(rig.attempts[0]!.error).toMatchObject({ kind: 'server', status: 200 });
  });
});
