/** Unified finish reasons and usage in the Messages API's vocabulary (both encoders use these). */
import type { FinishReason, Usage } from '@switchyard/core';

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
