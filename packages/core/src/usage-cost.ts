/** Token counts and the cost of an answer from a deployment's `price` (USD per million tokens). */
import type { Price, Usage } from './types.js';

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export function tokenCounts(usage: Usage | undefined): TokenCounts {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

/** Cached input tokens bill at `cachedInput` when the price names one; no price, no cost. */
export function usageCostUsd(tokens: TokenCounts, price: Price | undefined): number {
  if (!price) return 0;
  const cached = Math.min(tokens.cachedTokens, tokens.inputTokens);
  const fresh = tokens.inputTokens - cached;
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + tokens.outputTokens * price.output) / 1_000_000;
}
