/**
 * Anthropic stop reasons and usage in the unified (OpenAI) vocabulary, both ways: the codec reads
 * them from Anthropic's answers, the Messages dialect (dialect/) writes them for its clients.
 */
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
  for (const [key, value] of Object.entries(later ?? {}) as [keyof AnthropicUsage, number | null | undefined][]) {
    if (count(value) !== undefined) out[key] = value;
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
  return unified;
}

/* ---------------------------------------------------------------- unified → Messages (the dialect) */

const STOP_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
  // Not in Anthropic's enum; SDKs accept any string, but clients branch on these.
  error: 'end_turn',
  other: 'end_turn',
};

const ANTHROPIC_STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

/** Anthropic's own stop reason when the vendor gave one (`stop_sequence`, `pause_turn`), else the unified one mapped. */
export function stopReasonOf(reason: FinishReason | null | undefined, raw?: unknown): string {
  if (typeof raw === 'string' && ANTHROPIC_STOP_REASONS.has(raw)) return raw;
  return STOP_REASONS[reason ?? 'stop'] ?? 'end_turn';
}

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** Anthropic's `input_tokens` leaves out cache reads and writes; the unified prompt count includes them. */
export function messagesUsage(usage: Usage | undefined): MessagesUsage {
  if (!usage) return { input_tokens: 0, output_tokens: 0 };
  const details = usage.prompt_tokens_details;
  const read = details?.cached_tokens ?? 0;
  const write = details?.cache_write_tokens ?? 0;
  const out: MessagesUsage = { input_tokens: Math.max(0, usage.prompt_tokens - read - write), output_tokens: usage.completion_tokens };
  if (details) {
    out.cache_creation_input_tokens = write;
    out.cache_read_input_tokens = read;
  }
  return out;
}

/** Anthropic ids start `msg_`; another vendor's id is kept after the prefix. */
export function messageId(id: string | undefined): string {
  if (!id) return `msg_${Math.random().toString(36).slice(2, 14)}`;
  return id.startsWith('msg_') ? id : `msg_${id}`;
}

/** A tool call's arguments as the `input` object Anthropic blocks carry (`{}` for text that is no JSON object). */
export function toolInput(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Anthropic takes tool_use ids of letters, digits, `_` and `-` only (it checks the ids a client sends back). */
export function toolUseId(id: string | undefined): string {
  if (!id) return `toolu_${Math.random().toString(36).slice(2, 14)}`;
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : id.replace(/[^A-Za-z0-9_-]/g, '_');
}
