/** Conversions between a stream of parts and a whole response. */
import type { ChatResponse, FinishReason, ProviderMetadata, StreamPart, ToolCall, Usage } from './types.js';

/** Accumulates stream parts into the answer received so far. */
export class ResponseAccumulator {
  id = '';
  model = '';
  /** The vendor's (a `response-metadata` part's), else `created` as given (unix seconds), else now. */
  created: number;
  text = '';
  reasoning = '';
  toolCalls: ToolCall[] = [];
  finishReason: FinishReason | null = null;
  usage: Usage | undefined;
  providerMetadata: ProviderMetadata | undefined;
  sawContent = false;
  /** Characters of a stream's events forwarded undecoded that could not be decoded later (kept-stream.ts): counted as output seen. */
  unreadChars = 0;

  constructor(created?: number) {
    this.created = created ?? Math.floor(Date.now() / 1000);
  }

  add(part: StreamPart): void {
    switch (part.type) {
      case 'response-metadata':
        if (part.id) this.id = part.id;
        if (part.model) this.model = part.model;
        if (part.created) this.created = part.created;
        if (part.providerMetadata) this.mergeMetadata(part.providerMetadata);
        break;
      case 'text-delta':
        this.text += part.text;
        this.sawContent = true;
        break;
      case 'reasoning-delta':
        this.reasoning += part.text;
        this.sawContent = true;
        if (part.providerMetadata) this.mergeMetadata(part.providerMetadata);
        break;
      case 'tool-call-delta': {
        this.sawContent = true;
        let call = this.toolCalls[part.index];
        if (!call) {
          call = { id: part.id ?? '', type: 'function', function: { name: part.name ?? '', arguments: '' } };
          this.toolCalls[part.index] = call;
        }
        if (part.id) call.id = part.id;
        if (part.name) call.function.name = part.name;
        call.function.arguments += part.argumentsDelta;
        if (part.providerMetadata) this.mergeMetadata(part.providerMetadata);
        break;
      }
      case 'usage':
        this.usage = part.usage;
        break;
      case 'finish':
        this.finishReason = part.finishReason;
        if (part.usage) this.usage = part.usage;
        if (part.providerMetadata) this.mergeMetadata(part.providerMetadata);
        break;
      case 'error':
        break;
    }
  }

  /** Characters of output received so far: the basis of an estimate when the vendor reported no usage. */
  outputChars(): number {
    return this.unreadChars + this.text.length + this.reasoning.length + this.toolCalls.reduce((n, c) => n + (c ? c.function.arguments.length + c.function.name.length : 0), 0);
  }

  private mergeMetadata(meta: ProviderMetadata): void {
    this.providerMetadata ??= {};
    for (const [vendor, values] of Object.entries(meta)) {
      this.providerMetadata[vendor] = { ...(this.providerMetadata[vendor] ?? {}), ...values };
    }
  }

  toResponse(): ChatResponse {
    const toolCalls = this.toolCalls.filter(Boolean);
    const response: ChatResponse = {
      id: this.id || `chatcmpl-${Math.random().toString(36).slice(2, 14)}`,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: this.text.length > 0 || toolCalls.length === 0 ? this.text : null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            ...(this.reasoning ? { reasoning_content: this.reasoning } : {}),
            // Signatures must travel back on the next turn, so the message carries them too.
            ...(this.providerMetadata ? { providerMetadata: this.providerMetadata } : {}),
          },
          finish_reason: this.finishReason,
        },
      ],
    };
    if (this.usage) response.usage = this.usage;
    if (this.providerMetadata) response.providerMetadata = this.providerMetadata;
    return response;
  }
}

/** Replays a whole response as stream parts (cache hits and canned answers for stream requests). */
export function responseToParts(response: ChatResponse): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'response-metadata', id: response.id, model: response.model, created: response.created }];
  const choice = response.choices[0];
  const message = choice?.message;
  if (message?.reasoning_content) parts.push({ type: 'reasoning-delta', text: message.reasoning_content });
  if (message?.content) parts.push({ type: 'text-delta', text: message.content });
  message?.tool_calls?.forEach((call, index) => {
    parts.push({ type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: call.function.arguments });
  });
  parts.push({ type: 'finish', finishReason: choice?.finish_reason ?? 'stop', usage: response.usage });
  return parts;
}
