/**
 * What a request may cost at most, reserved on its budgets before the call. An answer that
 * stays within its output limit never costs more than this:
 *
 * - input: an upper bound of every input the vendor counts. Every string of the request (all
 *   message parts, tool calls and results, tool schemas, system, embeddings input, a stored
 *   conversation expanded from `previous_response_id`), object keys included, at half a token
 *   per UTF-8 byte (tokenizers put at least two bytes of ordinary text or code in a token; a
 *   CJK character is three bytes), every number as one token (embeddings take token arrays),
 *   and each image at `imageTokens` (the vendors' size rules cap an image well below that:
 *   OpenAI ~1.1k–2.5k, Anthropic ~1.6k, Gemini 258 a tile) instead of its base64 text;
 * - output: `max_completion_tokens` / `max_tokens`, else the candidate's `limits.maxOutputTokens`,
 *   else the plugin's `reserveOutputTokens`; times `n` choices;
 * - plus the tools the vendor runs and bills per call (Anthropic's `web_search_20250305`,
 *   OpenAI's hosted `web_search`, `file_search`…: any tool in the client's own body whose type
 *   is not `function` / `custom`), `max_uses` of each (else `serverToolCalls`) at `Price.perCall`;
 * - at the price of the dearest candidate it may be sent to (a failover may end there).
 */
import { type Candidate, type Price, type RequestContext } from '@switchyard/core';
import { choicesOf, inputPriceBound, inputTokenBound, outputLimitOf, ratesForPrompt, serverToolsOffered } from '@switchyard/core/internal';
import { requestOriginOf } from '@switchyard/core/wire';

export interface ServerTool {
  /** The tool's type without its date (`web_search_20250305`, `web_search_preview_2025_03_11` → `web_search`, `web_search_preview`). */
  kind: string;
  calls: number;
}

/** Tools in the client's own request body that the vendor runs and bills per call. */
export function serverToolsOf(request: RequestContext['request'], defaultCalls: number): ServerTool[] {
  const offered = serverToolsOffered(request);
  if (offered.length === 0) return [];
  // OpenAI's Responses bound every hosted tool's calls at once (`max_tool_calls`).
  const allCalls = (requestOriginOf(request)?.body as { max_tool_calls?: unknown } | undefined)?.max_tool_calls;
  if (typeof allCalls === 'number' && Number.isInteger(allCalls) && allCalls >= 0) defaultCalls = Math.min(defaultCalls, allCalls);
  return offered.map(({ kind, tool }) => {
    const most = tool.max_uses;
    return { kind, calls: typeof most === 'number' && Number.isInteger(most) && most >= 0 ? most : defaultCalls };
  });
}

/** The first tool kind `price` has no per-call fee for. */
export function unpricedTool(tools: readonly ServerTool[], price: Price | undefined): string | undefined {
  return tools.find((t) => price?.perCall?.[t.kind] === undefined)?.kind;
}

export { reservationTokens } from '@switchyard/core/internal';

export interface EstimateRules {
  /** Output tokens assumed when neither the request nor the deployment bounds them. */
  reserveOutputTokens: number;
  /** Tokens one image may cost. */
  imageTokens: number;
  /** Calls a server tool without `max_uses` is reserved for. */
  serverToolCalls: number;
}

/** The most `request` may cost on any of `candidates` (USD); unpriced candidates are left out (the route tap refuses them for budgeted keys). */
export function reservationUsd(candidates: readonly Candidate[], request: RequestContext['request'], rules: EstimateRules, priceOf: (c: Candidate) => Price | undefined): number {
  const inputTokens = inputTokenBound(request, rules.imageTokens);
  const choices = choicesOf(request);
  const tools = serverToolsOf(request, rules.serverToolCalls);
  let most = 0;
  for (const c of candidates) {
    const price = priceOf(c);
    if (!price) continue;
    const outputTokens = outputLimitOf(request, c, rules.reserveOutputTokens) * choices;
    let fees = 0;
    for (const t of tools) fees += t.calls * (price.perCall?.[t.kind] ?? 0);
    // A prompt may be written to the vendor's cache, which can bill above the input price; a long one bills at the long-context rates.
    const rates = ratesForPrompt(price, inputTokens);
    most = Math.max(most, (inputTokens * inputPriceBound(rates) + outputTokens * rates.output) / 1_000_000 + fees);
  }
  return most;
}
