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
import { type Candidate, type ChatRequest, type Price, type RequestContext } from '@switchyard/core';
import { inputPriceBound } from '@switchyard/core/internal';
import { requestOriginOf } from '@switchyard/core/wire';

export interface ServerTool {
  /** The tool's type without its date (`web_search_20250305` → `web_search`). */
  kind: string;
  calls: number;
}

/** Tools in the client's own request body that the vendor runs and bills per call. */
export function serverToolsOf(request: RequestContext['request'], defaultCalls: number): ServerTool[] {
  const tools = (requestOriginOf(request)?.body as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  const out: ServerTool[] = [];
  for (const tool of tools) {
    const type = (tool as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || type === 'function' || type === 'custom') continue;
    const most = (tool as { max_uses?: unknown }).max_uses;
    out.push({ kind: type.replace(/_\d{8}$/, ''), calls: typeof most === 'number' && Number.isInteger(most) && most >= 0 ? most : defaultCalls });
  }
  return out;
}

/** The first tool kind `price` has no per-call fee for. */
export function unpricedTool(tools: readonly ServerTool[], price: Price | undefined): string | undefined {
  return tools.find((t) => price?.perCall?.[t.kind] === undefined)?.kind;
}

export interface EstimateRules {
  /** Output tokens assumed when neither the request nor the deployment bounds them. */
  reserveOutputTokens: number;
  /** Tokens one image may cost. */
  imageTokens: number;
  /** Calls a server tool without `max_uses` is reserved for. */
  serverToolCalls: number;
}

/** Content parts that are images in the dialects a request arrives in (Chat, Messages, Responses, Gemini). */
const IMAGE_TYPES = new Set(['image_url', 'image', 'input_image']);
/** Fields that are ours or the request's knobs, never input the vendor bills. */
const NOT_INPUT = new Set(['switchyard', 'model', 'stream', 'stream_options', 'n', 'max_tokens', 'max_completion_tokens', 'max_output_tokens', 'temperature', 'top_p', 'seed']);

/** An upper bound of the input tokens of `request` (see the module comment). */
export function inputTokenBound(request: RequestContext['request'], imageTokens: number): number {
  let bytes = 0;
  let tokens = 0;
  const pending: unknown[] = [];
  const top = request as unknown as Record<string, unknown>;
  for (const key in top) if (!NOT_INPUT.has(key)) pending.push(key, top[key]);
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8');
    else if (typeof value === 'number') tokens += 1;
    else if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (typeof value === 'object' && value !== null) {
      const fields = value as Record<string, unknown>;
      if (typeof fields.type === 'string' && IMAGE_TYPES.has(fields.type)) {
        tokens += imageTokens;
        continue;
      }
      for (const key in fields) pending.push(key, fields[key]);
    }
  }
  return tokens + Math.ceil(bytes / 2);
}

/** Choices asked for (`n`, OpenAI Chat): each one is billed its own output. */
export function choicesOf(request: RequestContext['request']): number {
  const n = (request as ChatRequest).n;
  return typeof n === 'number' && Number.isInteger(n) && n > 1 ? n : 1;
}

function outputLimitOf(request: RequestContext['request'], candidate: Candidate | undefined, fallback: number): number {
  const r = request as ChatRequest;
  return r.max_completion_tokens ?? r.max_tokens ?? candidate?.deployment.limits?.maxOutputTokens ?? fallback;
}

/** The most tokens (input and output) `request` may use on any of `candidates`: what a tokens-a-minute limit holds for it. */
export function reservationTokens(candidates: readonly Candidate[], request: RequestContext['request'], rules: EstimateRules): number {
  const inputTokens = inputTokenBound(request, rules.imageTokens);
  const choices = choicesOf(request);
  let output = candidates.length === 0 ? outputLimitOf(request, undefined, rules.reserveOutputTokens) : 0;
  for (const c of candidates) output = Math.max(output, outputLimitOf(request, c, rules.reserveOutputTokens));
  return inputTokens + output * choices;
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
    // A prompt may be written to the vendor's cache, which can bill above the input price.
    most = Math.max(most, (inputTokens * inputPriceBound(price) + outputTokens * price.output) / 1_000_000 + fees);
  }
  return most;
}
