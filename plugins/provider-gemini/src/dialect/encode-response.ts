/** Unified answers → Gemini `GenerateContentResponse` bodies (for answers from vendors of other APIs). */
import type { ChatResponse, FinishReason, Usage } from '@switchyard/core';
import { geminiFinishReason } from '../finish-reason.js';
import { geminiUsage } from '../usage.js';
import type { GeminiPart, GeminiResponse } from '../wire-types.js';

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    // A vendor's broken arguments still reach the client, as text it can show.
    return { arguments: text };
  }
}

export function functionCallPart(id: string | undefined, name: string, args: string): GeminiPart {
  return { functionCall: { name, args: parseArgs(args), ...(id ? { id } : {}) } };
}

export function geminiChunk(parts: GeminiPart[], model: string, responseId: string, finish?: { reason: FinishReason | null; usage?: Usage }): GeminiResponse {
  const candidate: Record<string, unknown> = { content: { role: 'model', parts } };
  if (finish) candidate.finishReason = geminiFinishReason(finish.reason);
  candidate.index = 0;
  const out: GeminiResponse = { candidates: [candidate] };
  const usage = finish ? geminiUsage(finish.usage) : undefined;
  if (usage) out.usageMetadata = usage;
  out.modelVersion = model;
  out.responseId = responseId;
  return out;
}

export function geminiResponseBody(response: ChatResponse): GeminiResponse {
  const choice = response.choices[0];
  const message = choice?.message;
  const parts: GeminiPart[] = [];
  if (message?.reasoning_content) parts.push({ text: message.reasoning_content, thought: true });
  if (message?.content) parts.push({ text: message.content });
  for (const call of message?.tool_calls ?? []) parts.push(functionCallPart(call.id, call.function.name, call.function.arguments));
  return geminiChunk(parts, response.model, response.id, { reason: choice?.finish_reason ?? 'stop', usage: response.usage });
}
