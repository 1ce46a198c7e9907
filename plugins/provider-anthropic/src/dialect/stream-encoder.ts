/**
 * Stream parts as the Messages API's typed SSE events: `message_start`, `ping`, per block
 * `content_block_start` / `content_block_delta` (`text_delta`, `thinking_delta`,
 * `input_json_delta`) / `content_block_stop`, then `message_delta` (stop reason, usage) and
 * `message_stop`.
 *
 * When the answer comes from Anthropic for a Messages client, each part carries the vendor's own
 * events (core's wire-events.ts): they are written as they came, signatures and all, and only
 * read (their names and block indexes, never parsed as JSON) to keep this encoder's state, so
 * parts without vendor text (a continuation on another vendor, a cached answer) go on in the
 * same message: the next block index, the open block continued or closed. The vendor's closing
 * `message_stop` never reaches a part: `end()` writes it.
 */
import { type StreamInfo, type StreamPart, type Usage } from '@switchyard/core';
import { sseEventNameAt, startsAt, wireTextOf } from '@switchyard/core/wire';
import type { StreamEncoder } from '@switchyard/core/dialect';
import { messageId, messagesUsage, stopReasonOf, toolUseId } from '../mapping.js';

const event = (name: string, data: string) => `event: ${name}\ndata: ${data}\n\n`;

const DELTA_EVENT = 'event: content_block_delta\n';
const INDEX = /"index"\s*:\s*(\d+)/;
const BLOCK_TYPE = /"content_block"\s*:\s*\{\s*"type"\s*:\s*"([^"]+)"/;
const DATA_TYPE = /^data: ?\{\s*"type"\s*:\s*"([^"]+)"/;

interface OpenBlock {
  index: number;
  type: string;
}

export class MessagesStreamEncoder implements StreamEncoder {
  private started = false;
  private id: string | undefined;
  private model: string | undefined;
  private nextIndex = 0;
  private open: OpenBlock | undefined;
  /** Unified tool call index → its block index. */
  private readonly toolBlocks = new Map<number, number>();
  private stopReason: string | undefined;
  private stopSequence: string | null = null;
  private usage: Usage | undefined;
  /** The vendor's own message_delta went out: the message only needs its message_stop. */
  private deltaSent = false;

  constructor(private readonly info: StreamInfo) {}

  encode(part: StreamPart): string {
    const wire = wireTextOf(part);
    if (wire !== undefined) {
      this.follow(wire, part);
      return wire;
    }
    switch (part.type) {
      case 'response-metadata':
        this.id ??= part.id;
        this.model ??= part.model;
        return '';
      case 'text-delta':
        return `${this.enter('text', '{"type":"text","text":""}')}${this.delta(`{"type":"text_delta","text":${JSON.stringify(part.text)}}`)}`;
      case 'reasoning-delta':
        return `${this.enter('thinking', '{"type":"thinking","thinking":"","signature":""}')}${this.delta(`{"type":"thinking_delta","thinking":${JSON.stringify(part.text)}}`)}`;
      case 'tool-call-delta': {
        let out = '';
        let index = this.toolBlocks.get(part.index);
        if (index === undefined) {
          out = this.start('tool_use', `{"type":"tool_use","id":${JSON.stringify(toolUseId(part.id))},"name":${JSON.stringify(part.name ?? '')},"input":{}}`);
          index = this.open!.index;
          this.toolBlocks.set(part.index, index);
        }
        if (part.argumentsDelta) out += event('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":${JSON.stringify(part.argumentsDelta)}}}`);
        return out;
      }
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'finish': {
        if (part.usage) this.usage = part.usage;
        const anthropic = part.providerMetadata?.anthropic;
        this.stopReason = stopReasonOf(part.finishReason, part.rawFinishReason ?? anthropic?.stopReason);
        if (typeof anthropic?.stopSequence === 'string') this.stopSequence = anthropic.stopSequence;
        return `${this.begin()}${this.close()}`;
      }
      case 'error':
        return '';
    }
  }

  end(): string {
    let out = `${this.begin()}${this.close()}`;
    if (!this.deltaSent) {
      // Usage after the finish (OpenAI's trailing usage chunk) is in by now: the exact count, input
      // and cache fields included (a vendor that reports usage only at its end, as Chat
      // Completions does, left message_start's at 0).
      const usage = Object.assign({ input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, messagesUsage(this.usage));
      out += event('message_delta', `{"type":"message_delta","delta":{"stop_reason":${JSON.stringify(this.stopReason ?? 'end_turn')},"stop_sequence":${JSON.stringify(this.stopSequence)}},"usage":${JSON.stringify(usage)}}`);
    }
    return `${out}${event('message_stop', '{"type":"message_stop"}')}`;
  }

  /** The message head, once. */
  private begin(): string {
    if (this.started) return '';
    this.started = true;
    // Usage a vendor reported before the first block (Gemini's, on every chunk) is the head's; its cache fields are always there, as Anthropic's are.
    const usage = Object.assign({ input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, messagesUsage(this.usage), { output_tokens: this.usage ? this.usage.completion_tokens : 0 });
    const message = { id: messageId(this.id), type: 'message', role: 'assistant', model: this.model || this.info.model, content: [], stop_reason: null, stop_sequence: null, usage };
    return `${event('message_start', JSON.stringify({ type: 'message_start', message }))}${event('ping', '{"type":"ping"}')}`;
  }

  /** Continues the open block of this type, or closes it and starts one. */
  private enter(type: string, block: string): string {
    return this.open?.type === type ? '' : this.start(type, block);
  }

  private start(type: string, block: string): string {
    const head = `${this.begin()}${this.close()}`;
    this.open = { index: this.nextIndex++, type };
    return `${head}${event('content_block_start', `{"type":"content_block_start","index":${this.open.index},"content_block":${block}}`)}`;
  }

  private delta(delta: string): string {
    return event('content_block_delta', `{"type":"content_block_delta","index":${this.open!.index},"delta":${delta}}`);
  }

  private close(): string {
    if (!this.open) return '';
    const { index } = this.open;
    this.open = undefined;
    return event('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
  }

  /** Keeps the state in step with forwarded vendor events (their names and indexes only). */
  private follow(wire: string, part: StreamPart): void {
    // The common case, one text or JSON delta: nothing changes.
    if (wire.startsWith(DELTA_EVENT) && wire.indexOf('\n\n') === wire.length - 2) return;
    for (let at = 0; at < wire.length; ) {
      let end = wire.indexOf('\n\n', at);
      if (end < 0) end = wire.length;
      // A run of deltas forwarded unread by the core (a lazy pass-through) changes nothing either.
      if (!startsAt(wire, DELTA_EVENT, at)) this.followEvent(wire.slice(at, end), part);
      at = end + 2;
    }
  }

  private followEvent(text: string, part: StreamPart): void {
    let name = sseEventNameAt(text);
    let data = text;
    if (name !== undefined) {
      const eol = text.indexOf('\n');
      data = eol < 0 ? '' : text.slice(eol + 1);
    } else name = DATA_TYPE.exec(text)?.[1];
    switch (name) {
      case 'message_start':
        this.started = true;
        return;
      case 'content_block_start': {
        const index = Number(INDEX.exec(data)?.[1] ?? this.nextIndex);
        const type = BLOCK_TYPE.exec(data)?.[1] ?? 'text';
        this.open = { index, type };
        this.nextIndex = Math.max(this.nextIndex, index + 1);
        if (type === 'tool_use' && part.type === 'tool-call-delta') this.toolBlocks.set(part.index, index);
        return;
      }
      case 'content_block_stop':
        if (this.open && this.open.index === Number(INDEX.exec(data)?.[1] ?? this.open.index)) this.open = undefined;
        return;
      case 'message_delta':
        this.deltaSent = true;
        return;
      default:
    }
  }
}
