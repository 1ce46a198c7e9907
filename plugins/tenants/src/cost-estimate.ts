/**
 * What a request may cost, reserved on its budgets before the call: its estimated prompt
 * tokens and its output limit (`max_completion_tokens` / `max_tokens`, else the plugin's
 * `reserveOutputTokens`) at the price of the dearest candidate it may be sent to (a failover
 * may end there). An answer that stays within its output limit never costs more than this.
 */
import type { Candidate, ChatRequest, Price, RequestContext } from '@switchyard/core';

export function outputLimitOf(request: RequestContext['request'], fallback: number): number {
  const r = request as ChatRequest;
  return r.max_completion_tokens ?? r.max_tokens ?? fallback;
}

export function estimateUsd(candidates: readonly Candidate[], inputTokens: number, outputTokens: number, priceOf: (c: Candidate) => Price | undefined): number {
  let most = 0;
  for (const c of candidates) {
    const price = priceOf(c);
    if (!price) continue;
    most = Math.max(most, (inputTokens * price.input + outputTokens * price.output) / 1_000_000);
  }
  return most;
}
