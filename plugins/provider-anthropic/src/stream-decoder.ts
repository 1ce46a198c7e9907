/**
 * Anthropic's event-typed SSE → unified stream parts. Blocks are addressed by index; tool calls
 * are numbered among tool_use blocks only (the unified index), thinking blocks are kept whole so
 * their signatures can be sent back, and anything unknown is skipped.
 */
import { SwitchyardError, type Candidate, type StreamDecoder, type StreamPart } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, startsAt, type DecodedSseEvent } from '@switchyard/core/wire';
import { streamEventError } from './classify-error.js';
import { finishReasonOf, mergeUsage, toUnifiedUsage } from './mapping.js';
import { stopMetadata } from './response.js';
import { PROVIDER_KEY } from './thinking.js';
import type { AnthropicUsage, MessagesResponseBody, ResponseBlock, SignedThinking, ThinkingBlock } from './wire-types.js';

type BlockState =
  | { kind: 'text' }
  | { kind: 'tool'; toolIndex: number; input: unknown; sentArguments: boolean }
  | { kind: 'thinking'; block: ThinkingBlock };

interface StreamEvent {
  type?: string;
  index?: number;
  message?: MessagesResponseBody;
  content_block?: ResponseBlock;
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; signature?: string } & Pick<MessagesResponseBody, 'stop_reason' | 'stop_sequence' | 'stop_details'>;
  usage?: AnthropicUsage;
}

/** Events whose parts only carry the answer's content (and ping). */
const UNREAD_EVENTS = ['event: content_block_delta\n', 'event: content_block_start\n', 'event: content_block_stop\n', 'event: ping\n'];

export class AnthropicStreamDecoder implements StreamDecoder {
  done = false;
  /** A Messages client gets these events as they came (core's wire-events.ts). */
  readonly wireFormat = ANTHROPIC_MESSAGES;
  private started = false;
  private messageId: string | undefined;
  private usage: AnthropicUsage | undefined;
  private finished = false;
  private stopReason: string | null | undefined;
  private stopMeta: Record<string, unknown> = {};
  private toolCount = 0;
  private readonly blocks = new Map<number, BlockState>();
  private readonly thinking: SignedThinking[] = [];

  constructor(private readonly target: Candidate) {}

  push(event: DecodedSseEvent): StreamPart[] {
    if (typeof event.json !== 'object' || event.json === null) return [];
    const data = event.json as StreamEvent;
    switch (data.type) {
      case 'message_start':
        return this.messageStart(data.message);
      case 'content_block_start':
        return this.blockStart(data.index ?? 0, data.content_block);
      case 'content_block_delta':
        return this.blockDelta(this.blocks.get(data.index ?? 0), data.delta);
      case 'content_block_stop':
        return this.blockStop(this.blocks.get(data.index ?? 0));
      case 'message_delta':
        return this.messageDelta(data);
      case 'message_stop':
        this.done = true;
        return this.finished ? [] : [this.finish()];
      case 'error':
        this.done = true;
        return [{ type: 'error', error: streamEventError(event.json, this.target) }];
      default:
        // ping, and event types Anthropic adds later.
        return [];
    }
  }

  end(): StreamPart[] {
    return [];
  }

  /**
   * After the commit point a Messages client needs nothing decoded from the content blocks'
   * events (their text is forwarded as it came): only `message_delta` (finish, usage),
   * `message_stop`, `error`, a repeated `message_start` and event types added later are read.
   * The event line comes first and JSON data has no raw newline, so text cannot fake one.
   */
  readAfterCommit(eventText: string): boolean {
    return this.readAfterCommitIn(eventText, 0);
  }

  readAfterCommitIn(text: string, start: number): boolean {
    // The event line, cut out once and compared whole (a different length fails at once).
    return !UNREAD_EVENTS.includes(text.slice(start, text.indexOf('\n', start) + 1));
  }

  /** `ping` yields no part, before the commit point too. */
  partlessIn(text: string, start: number): boolean {
    return startsAt(text, 'event: ping\n', start);
  }

  private messageStart(message: MessagesResponseBody | undefined): StreamPart[] {
    const id = message?.id;
    if (this.started) {
      // Proxies have repeated message_start; a different id means two generations were spliced.
      if (id === this.messageId) return [];
      this.done = true;
      const error = new SwitchyardError('server', `anthropic stream started a second message (${id}) inside ${this.messageId}`, { vendorCode: 'spliced_stream', provider: 'anthropic' });
      return [{ type: 'error', error }];
    }
    this.started = true;
    this.messageId = id;
    this.usage = mergeUsage(undefined, message?.usage);
    return [{ type: 'response-metadata', ...(id ? { id } : {}), ...(message?.model ? { model: message.model } : {}) }];
  }

  private blockStart(index: number, block: ResponseBlock | undefined): StreamPart[] {
    switch (block?.type) {
      case 'text':
        this.blocks.set(index, { kind: 'text' });
        return block.text ? [{ type: 'text-delta', text: block.text }] : [];
      case 'tool_use': {
        const toolIndex = this.toolCount++;
        this.blocks.set(index, { kind: 'tool', toolIndex, input: block.input, sentArguments: false });
        return [{ type: 'tool-call-delta', index: toolIndex, id: block.id, name: block.name, argumentsDelta: '' }];
      }
      case 'thinking': {
        const thinking: ThinkingBlock = { type: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' };
        this.blocks.set(index, { kind: 'thinking', block: thinking });
        this.thinking.push(thinking);
        return thinking.thinking ? [{ type: 'reasoning-delta', text: thinking.thinking }] : [];
      }
      case 'redacted_thinking':
        if (typeof block.data === 'string') this.thinking.push({ type: 'redacted_thinking', data: block.data });
        return [];
      default:
        return [];
    }
  }

  private blockDelta(state: BlockState | undefined, delta: StreamEvent['delta']): StreamPart[] {
    if (!state || !delta) return [];
    if (state.kind === 'text' && delta.type === 'text_delta' && delta.text) return [{ type: 'text-delta', text: delta.text }];
    if (state.kind === 'tool' && delta.type === 'input_json_delta' && delta.partial_json) {
      state.sentArguments = true;
      return [{ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: delta.partial_json }];
    }
    if (state.kind === 'thinking' && delta.type === 'thinking_delta' && delta.thinking) {
      state.block.thinking += delta.thinking;
      return [{ type: 'reasoning-delta', text: delta.thinking }];
    }
    if (state.kind === 'thinking' && delta.type === 'signature_delta' && delta.signature) state.block.signature += delta.signature;
    return [];
  }

  private blockStop(state: BlockState | undefined): StreamPart[] {
    if (state?.kind !== 'tool' || state.sentArguments) return [];
    // A tool without arguments streams only an empty partial_json; the unified call needs a JSON object.
    state.sentArguments = true;
    return [{ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: JSON.stringify(state.input ?? {}) }];
  }

  private messageDelta(data: StreamEvent): StreamPart[] {
    this.usage = mergeUsage(this.usage, data.usage);
    if (data.delta?.stop_reason) {
      this.stopReason = data.delta.stop_reason;
      this.stopMeta = stopMetadata(data.delta);
    }
    if (!this.finished && this.stopReason) return [this.finish()];
    const usage = toUnifiedUsage(this.usage);
    return usage ? [{ type: 'usage', usage }] : [];
  }

  private finish(): StreamPart {
    this.finished = true;
    const meta = { ...this.stopMeta, ...(this.thinking.length > 0 ? { thinkingBlocks: this.thinking } : {}) };
    const usage = toUnifiedUsage(this.usage);
    return {
      type: 'finish',
      finishReason: finishReasonOf(this.stopReason),
      ...(this.stopReason ? { rawFinishReason: this.stopReason } : {}),
      ...(usage ? { usage } : {}),
      ...(Object.keys(meta).length > 0 ? { providerMetadata: { [PROVIDER_KEY]: meta } } : {}),
    };
  }
}
