/** Vendor usage objects → the unified (OpenAI) usage shape. */
import type { Usage } from '@switchyard/core';
import type { WireUsage } from './wire-types.js';

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * Keeps prompt/completion/total and the cached/reasoning details; DeepSeek's
 * `prompt_cache_hit_tokens` stands in for `cached_tokens` when the latter is missing.
 * Returns undefined when the vendor sent no token counts at all.
 */
export function normalizeUsage(usage: WireUsage | null | undefined): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const out: Usage = {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: count(usage.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
  };
  const cached = count(usage.prompt_tokens_details?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens);
  if (cached !== undefined) out.prompt_tokens_details = { cached_tokens: cached };
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) out.completion_tokens_details = { reasoning_tokens: reasoning };
  return out;
}
