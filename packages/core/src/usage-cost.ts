/** Token counts and the cost of an answer from a deployment's `price` (USD per million tokens). */
import type { Price, Usage } from './types.js';

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** Input tokens written to the prompt cache (a part of `inputTokens`, like `cachedTokens`). */
  cacheWriteTokens?: number;
}

export function tokenCounts(usage: Usage | undefined): TokenCounts {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage?.prompt_tokens_details?.cache_write_tokens ?? 0,
  };
}

/**
 * The price of one call a vendor reported as `kind`. A vendor may report the calls of a variant
 * of a tool under the tool's own kind: OpenAI answers `web_search_preview` (dearer on most
 * models) with the same `web_search_call` items as `web_search`. So a call is billed at the
 * dearest price among the tool kinds the request offered that are `kind` or a variant of it
 * (`kind_…`): the same price-table entry the reservation used for the tool that was offered.
 * Without an offered variant (or `offered` unknown), at `perCall[kind]`.
 */
function perCallPrice(kind: string, perCall: Readonly<Record<string, number>>, offered: readonly string[] | undefined): number {
  let most: number | undefined;
  if (offered) {
    for (const o of offered) {
      const fee = o === kind || o.startsWith(`${kind}_`) ? perCall[o] : undefined;
      if (fee !== undefined && (most === undefined || fee > most)) most = fee;
    }
  }
  return most ?? perCall[kind] ?? 0;
}

/**
 * What the vendor bills per call of the tools it ran (`usage.server_tool_calls` × `price.perCall`,
 * each kind at its offered variant's price when `offered` names the request's server tool kinds);
 * a kind without a price costs 0 here (budgeted keys are refused such tools before the call).
 */
export function toolCallsCostUsd(usage: Usage | undefined, price: Price | undefined, offered?: readonly string[]): number {
  const calls = usage?.server_tool_calls;
  if (!calls || !price?.perCall) return 0;
  let usd = 0;
  for (const kind in calls) usd += (calls[kind] ?? 0) * perCallPrice(kind, price.perCall, offered);
  return usd;
}

/**
 * The rates a request with a prompt of `inputTokens` pays: `price.longContext`'s past its
 * threshold (every token of the request, as Anthropic and Google bill it), else `price`'s.
 * Premium rates are never lower, so the rates at a prompt's upper bound bound its cost.
 */
export function ratesForPrompt(price: Price, inputTokens: number): Price {
  const long = price.longContext;
  if (!long || inputTokens <= long.aboveInputTokens) return price;
  return { input: long.input, output: long.output, cachedInput: long.cachedInput ?? long.input, cacheWrite: long.cacheWrite ?? long.input, perCall: price.perCall };
}

/**
 * Input tokens read from the prompt cache bill at `cachedInput`, those written to it at
 * `cacheWrite`, each when the price names one (the input price otherwise), at the long-context
 * rates past their threshold; no price, no cost.
 */
export function usageCostUsd(tokens: TokenCounts, basePrice: Price | undefined): number {
  if (!basePrice) return 0;
  const price = ratesForPrompt(basePrice, tokens.inputTokens);
  const cached = Math.min(tokens.cachedTokens, tokens.inputTokens);
  const written = Math.min(tokens.cacheWriteTokens ?? 0, tokens.inputTokens - cached);
  const fresh = tokens.inputTokens - cached - written;
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + written * (price.cacheWrite ?? price.input) + tokens.outputTokens * price.output) / 1_000_000;
}

/** The most one input token can cost at this price (a reservation's upper bound: a prompt may be written to the cache). */
export function inputPriceBound(price: Price): number {
  return Math.max(price.input, price.cacheWrite ?? 0);
}
