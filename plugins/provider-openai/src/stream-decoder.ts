/**
 * Chat Completions chunks → unified stream parts, for OpenAI and every compatible vendor:
 * Azure's empty first chunk, DeepSeek/Ollama reasoning fields, tool calls by `index` (whole
 * calls in one delta on Groq and Ollama), usage on the finish chunk or in a trailing
 * `choices: []` chunk, and errors inside a 200 stream.
 */
import { SwitchyardError, type DecodedSseEvent, type ErrorRule, type ProviderMetadata, type StreamDecoder, type StreamPart } from '@switchyard/core';
import { classifyStreamError } from './classify-error.js';
import { INSUFFICIENT_RESOURCE, mapFinishReason } from './finish-reason.js';
import { reasoningOf, syntheticToolCallId, usageMetadata } from './response.js';
import { normalizeUsage } from './usage.js';
import { asWireBody, vendorExtras, type WireBody, type WireChoice, type WireToolCall } from './wire-types.js';

export class ChatStreamDecoder implements StreamDecoder {
  private responseId = '';
  private metadataSent = false;
  private finished = false;
  /** Extras seen before the first chunk with an id (Azure's prompt_filter_results). */
  private pendingExtras: Record<string, unknown> = {};
  /** Vendor tool-call index → our index, in order of first appearance. */
  private readonly toolIndexes = new Map<number, number>();
  private toolCount = 0;
  private refusal = '';

  constructor(
    private readonly providerId: string,
    private readonly apiKey?: string,
    private readonly errorRules?: readonly ErrorRule[],
  ) {}

  push(event: DecodedSseEvent): StreamPart[] {
    const body = asWireBody(event.json);
    if (event.event === 'error') return [{ type: 'error', error: classifyStreamError(this.providerId, event.json, this.apiKey, this.errorRules) }];
    if (!body) return [];
    const parts: StreamPart[] = [];
    this.readMetadata(body, parts);
    const choice = Array.isArray(body.choices) ? firstChoice(body.choices) : undefined;
    if (choice) this.readChoice(choice, body, parts);
    else if (body.usage) this.pushUsage(body, parts);
    // OpenRouter puts the error on a chunk that also has choices and usage: the usage is kept above.
    if (body.error !== undefined) parts.push({ type: 'error', error: classifyStreamError(this.providerId, event.json, this.apiKey, this.errorRules) });
    return parts;
  }

  end(): StreamPart[] {
    return [];
  }

  private meta(values: Record<string, unknown>): ProviderMetadata {
    return { [this.providerId]: values };
  }

  private readMetadata(body: WireBody, parts: StreamPart[]): void {
    if (this.metadataSent) return;
    const id = typeof body.id === 'string' ? body.id : '';
    const model = typeof body.model === 'string' ? body.model : '';
    const extras = { ...this.pendingExtras, ...vendorExtras(body) };
    // Azure's first chunk has id "", model "" and created 0: remember its extras, report nothing yet.
    if (!id && !model) {
      this.pendingExtras = extras;
      return;
    }
    this.metadataSent = true;
    this.responseId = id;
    parts.push({
      type: 'response-metadata',
      ...(id ? { id } : {}),
      ...(model ? { model } : {}),
      ...(typeof body.created === 'number' && body.created > 0 ? { created: body.created } : {}),
      ...(Object.keys(extras).length > 0 ? { providerMetadata: this.meta(extras) } : {}),
    });
  }

  private readChoice(choice: WireChoice, body: WireBody, parts: StreamPart[]): void {
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta);
    if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
    if (typeof delta.content === 'string' && delta.content.length > 0) parts.push({ type: 'text-delta', text: delta.content });
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.readToolCall(call, parts);
    const raw = choice.finish_reason;
    if (typeof raw !== 'string' || raw.length === 0) {
      if (body.usage) this.pushUsage(body, parts);
      return;
    }
    if (raw === INSUFFICIENT_RESOURCE) {
      parts.push({
        type: 'error',
        error: new SwitchyardError('overloaded', `${this.providerId} stopped the answer: ${INSUFFICIENT_RESOURCE}`, { vendorCode: INSUFFICIENT_RESOURCE, provider: this.providerId, retryable: true }),
      });
      return;
    }
    if (this.finished) {
      // Repeated finish chunks (OpenRouter) only add usage.
      if (body.usage) this.pushUsage(body, parts);
      return;
    }
    this.finished = true;
    const finishReason = mapFinishReason(raw);
    const usage = normalizeUsage(body.usage ?? body.x_groq?.usage);
    const meta: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(choice)) {
      if (!['index', 'delta', 'finish_reason', 'logprobs'].includes(key) && value !== null && value !== undefined) meta[key] = value;
    }
    if (body.x_groq) meta.x_groq = body.x_groq;
    const usageExtras = usageMetadata(body.usage);
    if (usageExtras) meta.usage = usageExtras;
    if (this.refusal) meta.refusal = this.refusal;
    parts.push({
      type: 'finish',
      finishReason,
      ...(finishReason !== raw ? { rawFinishReason: raw } : {}),
      ...(usage ? { usage } : {}),
      ...(Object.keys(meta).length > 0 ? { providerMetadata: this.meta(meta) } : {}),
    });
  }

  private readToolCall(call: WireToolCall, parts: StreamPart[]): void {
    const { index, isNew } = this.toolSlot(call);
    const args = call.function?.arguments ?? '';
    const id = call.id || (isNew ? syntheticToolCallId(this.responseId, index) : undefined);
    const name = call.function?.name || undefined;
    if (!id && !name && !args) return;
    parts.push({ type: 'tool-call-delta', index, ...(id ? { id } : {}), ...(name ? { name } : {}), argumentsDelta: args });
  }

  /**
   * Our index for a vendor tool call. Vendors number calls by `index`; a few compatible servers
   * leave it out, so a delta with an id starts the next call and one without continues the last.
   */
  private toolSlot(call: WireToolCall): { index: number; isNew: boolean } {
    if (typeof call.index === 'number') {
      const known = this.toolIndexes.get(call.index);
      if (known !== undefined) return { index: known, isNew: false };
      this.toolIndexes.set(call.index, this.toolCount);
      return { index: this.toolCount++, isNew: true };
    }
    if (call.id || this.toolCount === 0) return { index: this.toolCount++, isNew: true };
    return { index: this.toolCount - 1, isNew: false };
  }

  private pushUsage(body: WireBody, parts: StreamPart[]): void {
    const usage = normalizeUsage(body.usage);
    if (usage) parts.push({ type: 'usage', usage });
  }
}

/** The choice with index 0 (vendors that leave `index` out mean 0). */
function firstChoice(choices: (WireChoice | null | undefined)[]): WireChoice | undefined {
  for (const c of choices) if ((c?.index ?? 0) === 0) return c ?? undefined;
  return undefined;
}
