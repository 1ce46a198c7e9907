/** Anthropic stop reasons and usage in the unified (OpenAI) vocabulary. */
import type { FinishReason, Usage } from '@switchyard/core';
import type { AnthropicUsage } from './wire-types.js';

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  // A server-tool loop paused; the caller must send the turn again to continue.
  pause_turn: 'other',
};

export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  return (stopReason && FINISH_REASONS[stopReason]) || 'other';
}

function count(value: number | null | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Later reports win field by field: `message_delta` usage is cumulative, and
 * Anthropic-compatible servers send the real input count only there.
 */
export function mergeUsage(earlier: AnthropicUsage | undefined, later: AnthropicUsage | undefined): AnthropicUsage {
  const out: AnthropicUsage = { ...earlier };
  for (const [key, value] of Object.entries(later ?? {}) as [keyof AnthropicUsage, unknown][]) {
    if (key === 'server_tool_use') {
      if (value && typeof value === 'object') out.server_tool_use = value as AnthropicUsage['server_tool_use'];
    } else if (count(value as number | null | undefined) !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * Anthropic's `input_tokens` excludes cache reads and writes; the unified prompt count is the
 * whole prompt, with the cached share reported in `prompt_tokens_details`.
 */
export function toUnifiedUsage(usage: AnthropicUsage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  if (input === undefined && output === undefined) return undefined;
  const prompt = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const completion = output ?? 0;
  const unified: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (cacheRead !== undefined || cacheWrite !== undefined) {
    unified.prompt_tokens_details = { cached_tokens: cacheRead ?? 0, cache_write_tokens: cacheWrite ?? 0 };
  }
  // Billed per call on top of the tokens (Price.perCall).
  const searches = count(usage.server_tool_use?.web_search_requests);
  const fetches = count(usage.server_tool_use?.web_fetch_requests);
  if (searches || fetches) unified.server_tool_calls = { ...(searches ? { web_search: searches } : {}), ...(fetches ? { web_fetch: fetches } : {}) };
  return unified;
}
