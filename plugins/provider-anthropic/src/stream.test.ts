import { afterEach, describe, expect, it } from 'vitest';
import type { StreamPart } from '@switchyard/core';
import { anthropicRig, cassette, fixtureText, reframe, replay, sse, sseEvent, type TestRig } from '../test/support.js';

let rig: TestRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

async function streamParts(handler: Parameters<typeof anthropicRig>[0][number]): Promise<StreamPart[]> {
  rig = await anthropicRig([handler]);
  const parts: StreamPart[] = [];
  for await (const part of await rig.pipeline.stream(ask)) parts.push(part);
  return parts;
}

async function collectFrom(body: string) {
  rig = await anthropicRig([sse(body)]);
  return (await rig.pipeline.stream(ask)).collect();
}

describe('recorded streams replay to the unified output', () => {
  it('anthropic-text: text, end_turn, usage from message_delta', async () => {
    const r = await collectFrom(reframe(fixtureText('anthropic-text.chunks.txt')));
    expect(r.id).toBe('msg_01QC4g3HwBThD4BaNtBckFDJ');
    expect(r.model).toBe('claude-sonnet-4-5-20250929');
    expect(r.choices[0]!.message.content).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.usage).toEqual({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } });
    expect(r.providerMetadata?.anthropic).toMatchObject({ stopReason: 'end_turn' });
    expect(rig!.servers[0]!.requests[0]!.path).toBe('/v1/messages');
    expect(JSON.parse(rig!.servers[0]!.requests[0]!.body)).toMatchObject({ stream: true, model: 'claude-a' });
  });

  it('anthropic-json-tool.1: one tool call, arguments streamed as input_json_delta fragments', async () => {
    const parts = await streamParts(sse(reframe(fixtureText('anthropic-json-tool.1.chunks.txt'))));
    const toolParts = parts.filter((p) => p.type === 'tool-call-delta');
    expect(toolParts[0]).toEqual({ type: 'tool-call-delta', index: 0, id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json', argumentsDelta: '' });
    expect(toolParts.every((p) => p.type === 'tool-call-delta' && p.index === 0)).toBe(true);
    const finish = parts.filter((p) => p.type === 'finish');
    expect(finish).toHaveLength(1);
    expect(finish[0]).toMatchObject({ finishReason: 'tool_calls', rawFinishReason: 'tool_use', usage: { prompt_tokens: 849, completion_tokens: 47, total_tokens: 896 } });
    const args = toolParts.map((p) => (p.type === 'tool-call-delta' ? p.argumentsDelta : '')).join('');
    expect(JSON.parse(args)).toEqual({ elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] });
  });

  it('anthropic-json-tool.2: text then a tool at block index 1 becomes tool call index 0', async () => {
    const r = await collectFrom(reframe(fixtureText('anthropic-json-tool.2.chunks.txt')));
    const message = r.choices[0]!.message;
    expect(message.content).toBe("I'll invoke the JSON response tool.");
    expect(message.tool_calls).toEqual([
      { id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', type: 'function', function: { name: 'json', arguments: '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}' } },
    ]);
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('anthropic-tool-no-args: a tool with no arguments yields "{}" exactly once', async () => {
    const parts = await streamParts(sse(reframe(fixtureText('anthropic-tool-no-args.chunks.txt'))));
    const argFragments = parts.flatMap((p) => (p.type === 'tool-call-delta' && p.argumentsDelta ? [p.argumentsDelta] : []));
    expect(argFragments).toEqual(['{}']);
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');
    expect(text).toBe("I'll update the issue list for you.");
    expect(parts.find((p) => p.type === 'tool-call-delta')).toMatchObject({ index: 0, id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList' });
  });

  it('anthropic-message-delta-input-tokens: the later message_delta usage wins', async () => {
    const r = await collectFrom(reframe(fixtureText('anthropic-message-delta-input-tokens.chunks.txt')));
    expect(r.choices[0]!.message.content).toBe('pong');
    // message_start said 43 input tokens, message_delta 61: the compatible server's real count is the later one.
    expect(r.usage).toEqual({ prompt_tokens: 61, completion_tokens: 2, total_tokens: 63 });
  });

  it('raw cassette with padded JSON and `{"type": "ping"}` replays byte-exact', async () => {
    const [interaction] = cassette('pydantic-ai__test_request_stream_fallback_for_high_max_tokens.yaml');
    expect(interaction!.response.body!.string).toContain('{"type":"message_stop"    }');
    rig = await anthropicRig([replay(interaction!)]);
    const r = await (await rig.pipeline.stream(ask)).collect();
    expect(r.choices[0]!.message.content).toBe('2');
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.model).toBe('claude-sonnet-4-5-20250929');
    expect(r.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 });
  });

  it('raw thinking cassette: thinking deltas become reasoning, the signature is kept in providerMetadata', async () => {
    const [interaction] = cassette('pydantic-ai__test_anthropic_model_thinking_part_stream.yaml');
    const raw = interaction!.response.body!.string;
    const dataOf = (type: string) => [...raw.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!)).filter((d) => d.delta?.type === type);
    const signature = dataOf('signature_delta')[0].delta.signature as string;
    rig = await anthropicRig([replay(interaction!)]);
    const r = await (await rig.pipeline.stream(ask)).collect();
    const message = r.choices[0]!.message;
    expect(message.reasoning_content).toBe(dataOf('thinking_delta').map((d) => d.delta.thinking).join(''));
    expect(message.reasoning_content).toMatch(/^This is a straightforward question about pedestrian safety\./);
    expect(message.content).toBe(dataOf('text_delta').map((d) => d.delta.text).join(''));
    expect(message.content).toMatch(/streets\.$/);
    expect(r.providerMetadata?.anthropic?.thinkingBlocks).toEqual([{ type: 'thinking', thinking: message.reasoning_content, signature }]);
    expect(r.usage).toMatchObject({ prompt_tokens: 43, completion_tokens: 282 });
  });
});

describe('hand-authored edge cases', () => {
  it('anthropic-refusal: no content blocks, stop_reason refusal → content_filter with stop_details kept', async () => {
    const r = await collectFrom(reframe(fixtureText('anthropic-refusal.chunks.txt')));
    expect(r.choices[0]!.finish_reason).toBe('content_filter');
    expect(r.choices[0]!.message.content).toBe('');
    expect(r.providerMetadata?.anthropic).toMatchObject({ stopReason: 'refusal', stopDetails: { type: 'refusal', category: 'cyber' } });
    expect(r.usage).toMatchObject({ prompt_tokens: 18, completion_tokens: 5 });
  });

  it('duplicate-message-start with the same id is ignored', async () => {
    const parts = await streamParts(sse(reframe(fixtureText('duplicate-message-start.chunks.txt'))));
    expect(parts.filter((p) => p.type === 'response-metadata')).toEqual([{ type: 'response-metadata', id: 'msg_dup', model: 'claude-3-haiku-20240307' }]);
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([{ type: 'text-delta', text: 'Hello, World!' }]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { prompt_tokens: 17, completion_tokens: 227 } });
  });

  it('a second message_start with another id is a spliced stream: the attempt fails over', async () => {
    const spliced = reframe(fixtureText('duplicate-message-start.chunks.txt')).replace('"id":"msg_dup"', '"id":"msg_first"');
    rig = await anthropicRig([sse(spliced), sse(reframe(fixtureText('anthropic-text.chunks.txt')))]);
    const r = await (await rig.pipeline.stream(ask)).collect();
    expect(r.switchyard).toMatchObject({ endpoint: 'b' });
    expect(rig.attempts[0]!.error).toMatchObject({ kind: 'server', vendorCode: 'spliced_stream' });
  });

  it('unknown events, unknown block types and their deltas are skipped; tool numbering counts tool_use only', async () => {
    const body = [
      sseEvent({ type: 'message_start', message: { id: 'msg_x', model: 'claude-x', content: [], usage: { input_tokens: 5, output_tokens: 1 } } }),
      sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } }),
      sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } }),
      sseEvent({ type: 'content_block_stop', index: 0 }),
      sseEvent({ type: 'content_block_start', index: 1, content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] } }),
      sseEvent({ type: 'content_block_stop', index: 1 }),
      sseEvent({ type: 'future_event', payload: 1 }),
      sseEvent({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }),
      sseEvent({ type: 'content_block_delta', index: 2, delta: { type: 'citations_delta', citation: {} } }),
      sseEvent({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'found' } }),
      sseEvent({ type: 'content_block_stop', index: 2 }),
      sseEvent({ type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_9', name: 'lookup', input: {} } }),
      sseEvent({ type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } }),
      sseEvent({ type: 'content_block_stop', index: 3 }),
      sseEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
      sseEvent({ type: 'message_stop' }),
    ].join('');
    const r = await collectFrom(body);
    expect(r.choices[0]!.message.content).toBe('found');
    expect(r.choices[0]!.message.tool_calls).toEqual([{ id: 'toolu_9', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }]);
    expect(r.usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
  });

  it('message_stop ends the stream even when the connection stays open', async () => {
    const body = reframe(fixtureText('anthropic-text.chunks.txt'));
    const started = Date.now();
    rig = await anthropicRig([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(body); // and never end
      },
    ]);
    const full = await (await rig.pipeline.stream(ask)).collect();
    expect(full.choices[0]!.finish_reason).toBe('stop');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a stream that closes before message_delta is a stream-cut, never a success', async () => {
    const cut = reframe(fixtureText('anthropic-text.chunks.txt')).split('event: content_block_stop')[0]!;
    const parts = await streamParts(sse(cut));
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { kind: 'stream-cut' } });
  });
});
