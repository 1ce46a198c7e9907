/**
 * A pipeline's committed stream as AI SDK stream parts: text and reasoning blocks with start /
 * delta / end, tool input streamed per call then one `tool-call` per call, and one `finish`
 * at the very end (usage may follow the vendor's finish signal, so finish waits for it).
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ChatRequest, ChatStream, FinishReason, StreamPart, Usage } from '@switchyard/core';
import type { Dialect } from './dialects.js';
import { toAiSdkError } from './errors.js';

interface OpenCall { id: string; name: string; input: string }

export function toStreamParts<F, U, W>(chat: ChatStream, dialect: Dialect<F, U, W>, warnings: W[], request: ChatRequest, signal: AbortSignal | undefined): ReadableStream<LanguageModelV3StreamPart> {
  const iterator = chat[Symbol.asyncIterator]();
  const calls = new Map<number, OpenCall>();
  let text = false;
  let reasoning = false;
  let usage: Usage | undefined;
  let finish: { reason: FinishReason; raw?: string } | undefined;
  let failed = false;

  const closeBlocks = (out: unknown[]) => {
    if (text) out.push({ type: 'text-end', id: 'text-0' });
    if (reasoning) out.push({ type: 'reasoning-end', id: 'reasoning-0' });
    text = reasoning = false;
    for (const call of calls.values()) {
      out.push({ type: 'tool-input-end', id: call.id });
      out.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input || '{}' });
    }
    calls.clear();
  };

  const translate = (part: StreamPart, out: unknown[]) => {
    switch (part.type) {
      case 'response-metadata':
        out.push({ type: 'response-metadata', ...(part.id ? { id: part.id } : {}), ...(part.model ? { modelId: part.model } : {}), ...(part.created ? { timestamp: new Date(part.created * 1000) } : {}) });
        break;
      case 'text-delta':
        if (!text) out.push({ type: 'text-start', id: 'text-0' });
        text = true;
        out.push({ type: 'text-delta', id: 'text-0', delta: part.text });
        break;
      case 'reasoning-delta':
        if (!reasoning) out.push({ type: 'reasoning-start', id: 'reasoning-0' });
        reasoning = true;
        out.push({ type: 'reasoning-delta', id: 'reasoning-0', delta: part.text });
        break;
      case 'tool-call-delta': {
        let call = calls.get(part.index);
        if (!call) {
          call = { id: part.id ?? `call-${part.index}`, name: part.name ?? '', input: '' };
          calls.set(part.index, call);
          out.push({ type: 'tool-input-start', id: call.id, toolName: call.name });
        }
        call.input += part.argumentsDelta;
        if (part.argumentsDelta) out.push({ type: 'tool-input-delta', id: call.id, delta: part.argumentsDelta });
        break;
      }
      case 'usage':
        usage = part.usage;
        break;
      case 'finish':
        finish = { reason: part.finishReason, raw: part.rawFinishReason };
        if (part.usage) usage = part.usage;
        break;
      case 'error':
        closeBlocks(out);
        failed = true;
        out.push({ type: 'error', error: toAiSdkError(part.error, request, signal) });
        break;
    }
  };

  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: warnings as never });
      controller.enqueue({ type: 'response-metadata', modelId: chat.info.model });
    },
    async pull(controller) {
      const out: unknown[] = [];
      while (out.length === 0) {
        let next: IteratorResult<StreamPart>;
        try {
          next = await iterator.next();
        } catch (error) {
          controller.enqueue({ type: 'error', error: toAiSdkError(error, request, signal) });
          controller.close();
          return;
        }
        if (next.done) {
          closeBlocks(out);
          out.push({ type: 'finish', finishReason: dialect.finish(failed ? 'error' : finish?.reason ?? 'other', failed ? undefined : finish?.raw), usage: dialect.usage(usage), providerMetadata: { switchyard: { ...chat.info } } });
          for (const part of out) controller.enqueue(part as LanguageModelV3StreamPart);
          controller.close();
          return;
        }
        translate(next.value, out);
      }
      for (const part of out) controller.enqueue(part as LanguageModelV3StreamPart);
    },
    async cancel() {
      await chat.cancel();
    },
  });
}
