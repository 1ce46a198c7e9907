import { describe, expect, it } from 'vitest';
import { type StreamInfo, type StreamPart } from '@switchyard/core';
import { keepWireText } from '@switchyard/core/wire';
import { MessagesStreamEncoder } from './stream-encoder.js';

const info: StreamInfo = { endpoint: 'e', deployment: 'e/m', provider: 'p', attempts: 1, model: 'upstream-model' };

/** A part carrying the vendor's own events, as core's provider call keeps them. */
function forwarded<P extends StreamPart>(part: P, text: string): P {
  keepWireText(part, text);
  return part;
}

/** The events an SSE text holds: names and data. */
function events(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [head, data] = block.split('\n');
      return { event: head!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
    });
}

const sse = (data: { type: string } & Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

describe('MessagesStreamEncoder', () => {
  it('writes forwarded events as they are, and goes on from their block state with encoded parts', () => {
    const encoder = new MessagesStreamEncoder(info);
    const head = sse({ type: 'message_start', message: { id: 'msg_1', content: [] } }) + sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const delta = sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } });
    let out = encoder.encode(forwarded({ type: 'response-metadata', id: 'msg_1' }, sse({ type: 'message_start', message: { id: 'msg_1', content: [] } })));
    out += encoder.encode(forwarded({ type: 'text-delta', text: 'Hi' }, head.slice(head.indexOf('event: content_block_start')) + delta));
    expect(out).toBe(head + delta);
    // A continuation's text goes on in the open block; its reasoning opens the next one.
    const rest = encoder.encode({ type: 'text-delta', text: ' there' }) + encoder.encode({ type: 'reasoning-delta', text: 'hmm' }) + encoder.encode({ type: 'finish', finishReason: 'stop' }) + encoder.end();
    expect(events(rest)).toEqual([
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' there' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'hmm' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });

  it('follows data-only events (Anthropic-compatible servers without `event:` lines) by their type', () => {
    const encoder = new MessagesStreamEncoder(info);
    encoder.encode(forwarded({ type: 'text-delta', text: 'a' }, 'data: {"type":"message_start","message":{}}\n\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n'));
    encoder.encode(forwarded({ type: 'finish', finishReason: 'stop' }, 'data: {"type":"content_block_stop","index":0}\n\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n'));
    // Only the closing is the encoder's own: no second message_start, stop or delta.
    expect(encoder.end()).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });

  it('encodes a whole answer from another vendor: head, tool blocks by their own index, usage that came after the finish', () => {
    const encoder = new MessagesStreamEncoder(info);
    const parts: StreamPart[] = [
      { type: 'response-metadata', id: 'chatcmpl-1', model: 'gpt-x' },
      { type: 'tool-call-delta', index: 0, id: 'call.a', name: 'f', argumentsDelta: '{"a":' },
      { type: 'tool-call-delta', index: 1, id: 'call_b', name: 'g', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { prompt_tokens: 50, completion_tokens: 9, total_tokens: 59, prompt_tokens_details: { cached_tokens: 20 } } },
    ];
    const all = events(parts.map((p) => encoder.encode(p)).join('') + encoder.end());
    expect(all.map((e) => e.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(all[0]!.data.message).toMatchObject({ id: 'msg_chatcmpl-1', model: 'gpt-x', role: 'assistant', content: [] });
    expect(all[2]!.data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_a', name: 'f', input: {} } });
    expect(all[5]!.data.content_block).toMatchObject({ id: 'call_b', name: 'g' });
    // The late piece of the first call goes to the first call's block.
    expect(all[6]!.data).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } });
    // A vendor that reports usage only at its end (Chat Completions): message_start says 0, the final message_delta the exact count.
    expect(all[0]!.data.message.usage).toEqual({ input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
    expect(all[8]!.data).toEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 30, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 20 } });
  });

  it('the final message_delta carries every usage field even when the vendor reported no cache details', () => {
    const encoder = new MessagesStreamEncoder(info);
    const out = encoder.encode({ type: 'text-delta', text: 'hi' }) + encoder.encode({ type: 'finish', finishReason: 'stop', usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }) + encoder.end();
    const delta = events(out).find((e) => e.event === 'message_delta')!;
    expect(delta.data.usage).toEqual({ input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 });
  });

  it('an answer with no content still is a whole message', () => {
    const encoder = new MessagesStreamEncoder(info);
    const out = encoder.encode({ type: 'finish', finishReason: 'content_filter' }) + encoder.end();
    expect(events(out).map((e) => e.event)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
    expect(events(out)[2]!.data.delta.stop_reason).toBe('refusal');
    expect(events(out)[0]!.data.message.model).toBe('upstream-model');
  });
});
