/** Vendor finish reasons → the unified (OpenAI) vocabulary. */
import type { FinishReason } from '@switchyard/core';

const KNOWN: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'function_call',
  content_filter: 'content_filter',
  // OpenRouter and some proxies report a failed generation as a finish reason.
  error: 'error',
  // vLLM when the request was aborted server-side.
  abort: 'error',
};

/** DeepSeek's "we ran out of capacity mid-answer": a failure, not an ending. */
export const INSUFFICIENT_RESOURCE = 'insufficient_system_resource';

export function mapFinishReason(raw: string): FinishReason {
  return KNOWN[raw] ?? 'other';
}
