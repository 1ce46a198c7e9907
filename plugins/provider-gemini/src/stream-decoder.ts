/**
 * Gemini `GenerateContentResponse` chunks → unified stream parts. Each SSE event is a whole
 * response holding only new parts; the chunk with `finishReason` is the finish signal (Gemini
 * sends no `[DONE]`, the connection just closes). Non-streaming bodies go through the same
 * decoder as a single chunk, so both paths agree.
 */
import { SwitchyardError, type StreamDecoder, type StreamPart, type Usage } from '@switchyard/core';
import { KeyScan, type DecodedSseEvent } from '@switchyard/core/wire';
import { fingerprint, toolCallId } from './call-ids.js';
import { geminiError } from './classify-error.js';
import { mapFinishReason } from './finish-reason.js';
import { applyPartialArg } from './partial-args.js';
import type { GeminiMessageMetadata } from './thought-signatures.js';
import { mapUsage } from './usage.js';
import type { GeminiErrorBody, GeminiFunctionCall, GeminiPart, GeminiResponse } from './wire-types.js';
import { GEMINI_GENERATE_CONTENT } from './wire-format.js';

/** A call whose arguments are still arriving as `partialArgs` fragments. */
interface OpenCall {
  index: number;
  id: string;
  args: Record<string, unknown>;
}

function createdSeconds(createTime: string | undefined): number | undefined {
  const ms = createTime ? Date.parse(createTime) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** Chunks read after the commit point: those with one of these keys (one pass over the chunk). */
const READ_AFTER_COMMIT = /"(?:finishReason|error|promptFeedback|functionCall)"/;

export class GeminiStreamDecoder implements StreamDecoder {
  /** Where the chunk's next event to read after the commit point is (readAfterCommitIn). */
  private readonly keys = new KeyScan(READ_AFTER_COMMIT);
  /** A Gemini client's stream gets the vendor's own events (core's wire-events.ts). */
  readonly wireFormat = GEMINI_GENERATE_CONTENT;
  private responseKey: string | undefined;
  private nextCallIndex = 0;
  private open: OpenCall | undefined;
  private usage: Usage | undefined;
  private finished = false;
  private readonly callSignatures: Record<string, string> = {};
  private firstCallSignature: string | undefined;
  private textSignature: string | undefined;

  constructor(private readonly apiKey?: string) {}

  push(event: Pick<DecodedSseEvent, 'data' | 'json'>): StreamPart[] {
    const chunk = event.json as (GeminiResponse & GeminiErrorBody) | null;
    if (typeof chunk !== 'object' || chunk === null) return [];
    if (typeof chunk.error === 'object' && chunk.error !== null) {
      const status = typeof chunk.error.code === 'number' ? chunk.error.code : 500;
      return [{ type: 'error', error: geminiError({ status, headers: {}, json: chunk, text: event.data }, this.apiKey) }];
    }
    const out: StreamPart[] = [];
    if (this.responseKey === undefined) {
      this.responseKey = chunk.responseId ?? fingerprint(event.data);
      out.push({ type: 'response-metadata', id: chunk.responseId ?? `gemini-${this.responseKey}`, model: chunk.modelVersion, created: createdSeconds(chunk.createTime) });
    }
    const usage = mapUsage(chunk.usageMetadata);
    if (usage) this.usage = usage;

    const candidate = chunk.candidates?.[0];
    if (!candidate) {
      const blocked = chunk.promptFeedback?.blockReason;
      if (blocked) return [...out, { type: 'error', error: this.promptBlocked(blocked, chunk.promptFeedback?.blockReasonMessage) }];
    }
    for (const part of candidate?.content?.parts ?? []) this.decodePart(part, out);
    if (candidate?.finishReason) {
      this.closeOpenCall(out);
      this.finished = true;
      out.push({
        type: 'finish',
        finishReason: mapFinishReason(candidate.finishReason, this.nextCallIndex > 0),
        rawFinishReason: candidate.finishReason,
        ...(this.usage ? { usage: this.usage } : {}),
        providerMetadata: { gemini: { ...this.signatures(), finishReason: candidate.finishReason, ...(candidate.finishMessage ? { finishMessage: candidate.finishMessage } : {}) } },
      });
    } else if (this.finished && usage) {
      out.push({ type: 'usage', usage });
    }
    return out;
  }

  end(): StreamPart[] {
    return [];
  }

  /**
   * After the commit point a Gemini client needs decoded only the chunk that finishes the answer
   * (with its usage), an error, a blocked prompt, and function calls (the finish reason depends
   * on them); text chunks are forwarded unread. A key's two quotes are never both bare inside a
   * JSON string, so text cannot fake one.
   */
  readAfterCommit(eventText: string): boolean {
    return READ_AFTER_COMMIT.test(eventText);
  }

  readAfterCommitIn(text: string, start: number, end: number): boolean {
    return this.keys.within(text, start, end);
  }

  /** What a follow-up request must send back (see thought-signatures.ts). */
  signatures(): GeminiMessageMetadata {
    const meta: GeminiMessageMetadata = {};
    const signature = this.firstCallSignature ?? this.textSignature;
    if (signature) meta.thoughtSignature = signature;
    if (Object.keys(this.callSignatures).length > 0) meta.toolCallSignatures = { ...this.callSignatures };
    return meta;
  }

  private promptBlocked(reason: string, detail: string | undefined): SwitchyardError {
    return new SwitchyardError('content-filter', `gemini blocked the prompt (${reason})${detail ? `: ${detail}` : ''}`, { vendorCode: reason, provider: 'gemini', retryable: false });
  }

  private decodePart(part: GeminiPart, out: StreamPart[]): void {
    if (part.functionCall) {
      this.decodeFunctionCall(part.functionCall, part.thoughtSignature, out);
      return;
    }
    if (part.thoughtSignature) this.textSignature = part.thoughtSignature;
    if (typeof part.text !== 'string' || part.text.length === 0) return;
    out.push(part.thought === true ? { type: 'reasoning-delta', text: part.text } : { type: 'text-delta', text: part.text });
  }

  private decodeFunctionCall(call: GeminiFunctionCall, signature: string | undefined, out: StreamPart[]): void {
    if (typeof call.name === 'string') {
      this.closeOpenCall(out);
      const index = this.nextCallIndex++;
      const id = toolCallId(this.responseKey ?? '', index, call.id);
      if (signature) this.recordSignature(id, signature);
      const streaming = call.willContinue === true;
      if (streaming) {
        this.open = { index, id, args: { ...call.args } };
        for (const fragment of call.partialArgs ?? []) applyPartialArg(this.open.args, fragment);
      }
      out.push({
        type: 'tool-call-delta',
        index,
        id,
        name: call.name,
        // A streamed call opens with empty arguments; they are sent whole when it closes.
        argumentsDelta: streaming ? '' : JSON.stringify(call.args ?? {}),
        ...(signature ? { providerMetadata: { gemini: { thoughtSignature: signature } } } : {}),
      });
      return;
    }
    const open = this.open;
    if (!open) return;
    if (signature) this.recordSignature(open.id, signature);
    for (const fragment of call.partialArgs ?? []) applyPartialArg(open.args, fragment);
    if (call.willContinue !== true) this.closeOpenCall(out);
  }

  private recordSignature(id: string, signature: string): void {
    this.callSignatures[id] = signature;
    this.firstCallSignature ??= signature;
  }

  private closeOpenCall(out: StreamPart[]): void {
    if (!this.open) return;
    out.push({ type: 'tool-call-delta', index: this.open.index, argumentsDelta: JSON.stringify(this.open.args) });
    this.open = undefined;
  }
}
