/**
 * Serialises unified answers back to the OpenAI wire format the official SDKs parse:
 * `chat.completion` objects, `chat.completion.chunk` SSE events, embeddings and model lists.
 */
import { type ChatResponse, type EmbeddingResponse, type FinishReason, type StreamInfo, type StreamPart, type Usage } from '@switchyard/core';
import { wireTextOf } from '@switchyard/core/wire';
import { withField } from '@switchyard/core/internal';

const OPENAI_FINISH = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

/** Our `error` / `other` reasons are not in OpenAI's enum; SDK stream helpers reject unknown ones. */
export function wireFinishReason(reason: FinishReason | null): string | null {
  if (reason === null) return null;
  return OPENAI_FINISH.has(reason) ? reason : 'stop';
}

/** The response without Switchyard's own info (that travels in `x-switchyard-*` headers). */
export function chatCompletionBody(response: ChatResponse): Record<string, unknown> {
  return {
    id: response.id,
    object: 'chat.completion',
    created: response.created,
    model: response.model,
    choices: response.choices.map((choice) => ({
      index: choice.index,
      message: withField(choice.message, 'refusal', choice.message.refusal ?? null),
      logprobs: null,
      finish_reason: wireFinishReason(choice.finish_reason),
    })),
    ...(response.usage ? { usage: response.usage } : {}),
    system_fingerprint: response.system_fingerprint ?? null,
  };
}

/** A model of `GET /v1/models`. */
export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function modelEntry(id: string, created: number): ModelEntry {
  return { id, object: 'model', created, owned_by: 'switchyard' };
}

export function embeddingsBody(response: EmbeddingResponse): Record<string, unknown> {
  const { switchyard: _info, ...body } = response;
  return body;
}

/**
 * Turns stream parts into SSE text, one `data:` event per chunk. A part that carries its
 * vendor's chunk (a Chat Completions vendor the client's dialect matches: core's wire-events)
 * goes out as the vendor wrote it; only parts without one are encoded, with the state (id,
 * role, tool calls, usage) both kinds share.
 */
export class ChunkEncoder {
  private prefix: string | undefined;
  private id: string | undefined;
  private model: string | undefined;
  /** The vendor's; else the clock is read for the first chunk this encoder writes itself (a pass-through mostly writes none). */
  private created: number | undefined;
  private roleSent = false;
  private usage: Usage | undefined;
  private readonly toolCallsSeen = new Set<number>();
  /** The vendor's own usage chunk went out (the client asked for usage). */
  private usageForwarded = false;

  constructor(
    private readonly info: StreamInfo,
    private readonly includeUsage: boolean,
  ) {}

  /** SSE text for one part ('' when the part produces no chunk by itself). */
  encode(part: StreamPart): string {
    const wire = wireTextOf(part);
    return wire === undefined ? this.encodePart(part) : this.forward(part, wire);
  }

  /** The vendor's chunk for a part, with the state an encoded chunk after it needs. */
  private forward(part: StreamPart, wire: string): string {
    this.roleSent = true;
    switch (part.type) {
      case 'response-metadata':
        this.encodePart(part);
        return wire;
      case 'tool-call-delta':
        this.toolCallsSeen.add(part.index);
        return wire;
      case 'usage':
        this.usage = part.usage;
        // The gateway always asks for usage upstream; a client that did not gets no usage chunk.
        if (!this.includeUsage) return '';
        this.usageForwarded = true;
        return wire;
      case 'finish':
        if (part.usage) this.usage = part.usage;
        return wire;
      default:
        return wire;
    }
  }

  private encodePart(part: StreamPart): string {
    switch (part.type) {
      case 'response-metadata':
        if (this.prefix === undefined) {
          this.id ??= part.id;
          this.model ??= part.model;
          if (part.created) this.created = part.created;
        }
        return '';
      case 'text-delta':
        return this.chunkOf(`"content":${JSON.stringify(part.text)}`, null);
      case 'reasoning-delta':
        return this.chunkOf(`"reasoning_content":${JSON.stringify(part.text)}`, null);
      case 'tool-call-delta': {
        const first = !this.toolCallsSeen.has(part.index);
        this.toolCallsSeen.add(part.index);
        const fn: Record<string, string> = { arguments: part.argumentsDelta };
        if (part.name) fn.name = part.name;
        const call = { index: part.index, ...(part.id ? { id: part.id } : {}), ...(first ? { type: 'function' } : {}), function: fn };
        return this.chunk({ tool_calls: [call] }, null);
      }
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'finish':
        if (part.usage) this.usage = part.usage;
        return this.chunk({}, wireFinishReason(part.finishReason));
      case 'error':
        return '';
    }
  }

  /** The trailing usage chunk (when the client asked `stream_options.include_usage`) and `[DONE]`. */
  end(): string {
    let out = '';
    if (this.includeUsage && !this.usageForwarded) {
      const usage = this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      out += `data: ${this.head()}"choices":[],"usage":${JSON.stringify(usage)}}\n\n`;
    }
    return `${out}data: [DONE]\n\n`;
  }

  private head(): string {
    // Built once: every chunk of a stream shares id, created and model.
    this.prefix ??= `{"id":${JSON.stringify(this.id ?? `chatcmpl-${Math.random().toString(36).slice(2, 14)}`)},"object":"chat.completion.chunk","created":${this.created ?? Math.floor(Date.now() / 1000)},"model":${JSON.stringify(this.model || this.info.model)},`;
    return this.prefix;
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null): string {
    const fields = JSON.stringify(delta).slice(1, -1);
    return this.chunkOf(fields, finishReason);
  }

  /** One chunk from the delta's fields as JSON text (`"content":"…"`, or '' for `{}`): text deltas skip building an object. */
  private chunkOf(fields: string, finishReason: string | null): string {
    if (!this.roleSent) {
      this.roleSent = true;
      fields = fields ? `"role":"assistant",${fields}` : '"role":"assistant"';
    }
    return `data: ${this.head()}"choices":[{"index":0,"delta":{${fields}},"logprobs":null,"finish_reason":${finishReason === null ? 'null' : `"${finishReason}"`}}]}\n\n`;
  }
}

export function sseErrorEvent(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}
