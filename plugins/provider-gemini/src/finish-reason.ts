/** Gemini `finishReason` → the unified (OpenAI) vocabulary. */
import type { FinishReason } from '@switchyard/core';

const CONTENT_FILTER = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);

/** Function calls finish with `STOP`, so the presence of calls decides `tool_calls`. */
export function mapFinishReason(raw: string, hasToolCalls: boolean): FinishReason {
  if (raw === 'STOP') return hasToolCalls ? 'tool_calls' : 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER.has(raw)) return 'content_filter';
  return 'other';
}

/** The unified finish reason → Gemini's (the gateway's Gemini dialect writes it). */
export function geminiFinishReason(reason: FinishReason | null | undefined): string {
  switch (reason) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'stop':
    case 'tool_calls':
    case 'function_call':
    case null:
    case undefined:
      return 'STOP';
    default:
      return 'OTHER';
  }
}
