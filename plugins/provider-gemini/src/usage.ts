/** Gemini `usageMetadata` → OpenAI `usage`. Thinking tokens are billed as output, so they count as completion. */
import type { Usage } from '@switchyard/core';
import type { GeminiUsageMetadata } from './wire-types.js';

/** Undefined for metadata without counts (Vertex's early `{trafficType}` chunks). */
export function mapUsage(meta: GeminiUsageMetadata | undefined): Usage | undefined {
  if (!meta || (meta.promptTokenCount === undefined && meta.candidatesTokenCount === undefined && meta.totalTokenCount === undefined)) return undefined;
  const prompt = (meta.promptTokenCount ?? 0) + (meta.toolUsePromptTokenCount ?? 0);
  const completion = (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0);
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: meta.totalTokenCount ?? prompt + completion };
  if (meta.cachedContentTokenCount !== undefined) usage.prompt_tokens_details = { cached_tokens: meta.cachedContentTokenCount };
  if (meta.thoughtsTokenCount !== undefined) usage.completion_tokens_details = { reasoning_tokens: meta.thoughtsTokenCount };
  return usage;
}

/** OpenAI `usage` → Gemini `usageMetadata` (the inverse of mapUsage: thinking tokens apart again). */
export function geminiUsage(usage: Usage | undefined): GeminiUsageMetadata | undefined {
  if (!usage) return undefined;
  const thoughts = usage.completion_tokens_details?.reasoning_tokens;
  const meta: GeminiUsageMetadata = { promptTokenCount: usage.prompt_tokens, candidatesTokenCount: usage.completion_tokens - (thoughts ?? 0), totalTokenCount: usage.total_tokens };
  if (thoughts) meta.thoughtsTokenCount = thoughts;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (cached) meta.cachedContentTokenCount = cached;
  return meta;
}
