/**
 * Prices in USD per million tokens, and the cost of one answer. Built-in defaults cover common
 * models as their vendors listed them in 2025; they are a starting point, not an invoice:
 * override them in the plugin's `prices` option or with `price` on a deployment. Anthropic's
 * `cacheWrite` is its 5-minute cache write price (1.25× input); 1-hour entries bill 2×. A request
 * whose prompt passes 200k tokens bills every token at `longContext`'s rates: Claude Sonnet 4 and
 * 4.5 (the 1M-token context, 2025-08: $6 / $22.50, cache read $0.60, write $7.50) and Gemini 2.5
 * Pro (2025-06: $2.50 / $15, cached $0.25).
 */
import type { Candidate, Price } from '@switchyard/core';

const CLAUDE_SONNET_LONG_CONTEXT: NonNullable<Price['longContext']> = { aboveInputTokens: 200_000, input: 6, output: 22.5, cachedInput: 0.6, cacheWrite: 7.5 };

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = Object.freeze({
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75, longContext: CLAUDE_SONNET_LONG_CONTEXT },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75, longContext: CLAUDE_SONNET_LONG_CONTEXT },
  'claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125, longContext: { aboveInputTokens: 200_000, input: 2.5, output: 15, cachedInput: 0.25 } },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.075 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'deepseek-chat': { input: 0.28, output: 0.42, cachedInput: 0.028 },
  'deepseek-reasoner': { input: 0.28, output: 0.42, cachedInput: 0.028 },
});

const BY_LENGTH = Object.keys(DEFAULT_PRICES).sort((a, b) => b.length - a.length);

/** A built-in price for an upstream model name, tolerating dated and vendor-prefixed variants. */
export function defaultPrice(model: string): Price | undefined {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  if (DEFAULT_PRICES[name]) return DEFAULT_PRICES[name];
  // `gpt-4o-mini-2024-07-18`, `claude-sonnet-4-5-20250929`, `gemini-2.5-flash-preview-05-20`
  const base = BY_LENGTH.find((key) => name.startsWith(`${key}-`) || name.startsWith(`${key}@`));
  return base ? DEFAULT_PRICES[base] : undefined;
}

export type PriceTable = Readonly<Record<string, Price>>;

/**
 * Per-call fees of the tools a vendor runs itself, as the vendors listed them (dated: check and
 * override with `perCall` on a price). A tool kind not listed has no known price: a key with a
 * budget is refused it (plugin-tenants) rather than reserved at $0.
 *
 * - Anthropic, 2025-09: web search $10 per 1,000 searches, web fetch at no charge beyond its tokens.
 * - OpenAI (Responses hosted tools), 2025-10: `web_search` $10 per 1,000 calls (its search content
 *   tokens are in the usage); the older `web_search_preview` $25 per 1,000 on non-reasoning models,
 *   $10 on reasoning ones (gpt-5, the o-series: OPENAI_REASONING_TOOL_FEES). Both answer with
 *   `web_search_call` items: the calls that ran are billed at the entry of the variant that was
 *   offered, the one the reservation used (core's toolCallsCostUsd). `file_search` $2.50 per 1,000
 *   calls; Code Interpreter $0.03 per 1 GB container (counted once per container an answer used);
 *   MCP and computer use bill tokens only.
 */
export const DEFAULT_TOOL_FEES: Readonly<Record<string, Readonly<Record<string, number>>>> = Object.freeze({
  anthropic: Object.freeze({ web_search: 0.01, web_fetch: 0 }),
  openai: Object.freeze({ web_search: 0.01, web_search_preview: 0.025, file_search: 0.0025, code_interpreter: 0.03, mcp: 0, computer_use_preview: 0 }),
});

/** OpenAI's fees on its reasoning models, where `web_search_preview` costs what `web_search` does. */
export const OPENAI_REASONING_TOOL_FEES: Readonly<Record<string, number>> = Object.freeze({ ...DEFAULT_TOOL_FEES.openai!, web_search_preview: 0.01 });

/** gpt-5 and its dated / sized variants (not `gpt-5-chat`, which does not reason), o1, o3, o4-mini… */
const OPENAI_REASONING = /^(gpt-5(?!-chat)|o\d)([-@.]|$)/;

/** The per-call fees of the tools a deployment's vendor runs, by provider and model (undefined: none known). */
export function toolFeesFor(candidate: Pick<Candidate, 'model' | 'provider'>): Readonly<Record<string, number>> | undefined {
  if (candidate.provider === 'openai' && OPENAI_REASONING.test(candidate.model.slice(candidate.model.lastIndexOf('/') + 1).toLowerCase())) return OPENAI_REASONING_TOOL_FEES;
  return DEFAULT_TOOL_FEES[candidate.provider];
}

/** A price with a fee table, made once per (price, fees) pair. */
const withFees = new WeakMap<object, WeakMap<Price, Price>>();

/** Deployment `price` first, then the option table by `endpoint/model` or model, then the defaults; per-call fees from the dated defaults (toolFeesFor) when the price names none. */
export function priceFor(candidate: Pick<Candidate, 'deployment' | 'deploymentId' | 'model' | 'provider'>, table: PriceTable): Price | undefined {
  const price = candidate.deployment.price ?? table[candidate.deploymentId] ?? table[candidate.model] ?? defaultPrice(candidate.model);
  const fees = toolFeesFor(candidate);
  if (!price || price.perCall || !fees) return price;
  let byPrice = withFees.get(fees);
  if (!byPrice) withFees.set(fees, (byPrice = new WeakMap()));
  let priced = byPrice.get(price);
  if (!priced) byPrice.set(price, (priced = { ...price, perCall: fees }));
  return priced;
}

/** Output tokens per second of a deployment: the `estimates.deployments` entry by `endpoint/model` or model, else the default. */
export function outputSpeedFor(candidate: Candidate, estimates: { outputTokensPerSecond: number; deployments: Readonly<Record<string, number>> }): number {
  return estimates.deployments[candidate.deploymentId] ?? estimates.deployments[candidate.model] ?? estimates.outputTokensPerSecond;
}

/** Token counts and cost live in core so the metrics, logs and quota agree on one answer's price. */
export { tokenCounts as tokensOf, usageCostUsd as costOf, type TokenCounts } from '@switchyard/core/internal';
