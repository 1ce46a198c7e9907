/**
 * An upper bound of the tokens a request may use, for limits that hold it before the call
 * (tokens-a-minute) and reservations of spend (plugin-tenants, plugin-quota):
 *
 * - input: every string of the request (all message parts, tool calls and results, tool
 *   schemas, system, embeddings input, a stored conversation expanded from
 *   `previous_response_id`), object keys included, at half a token per UTF-8 byte (tokenizers put
 *   at least two bytes of ordinary text or code in a token; a CJK character is three bytes),
 *   every number as one token (embeddings take token arrays), each image at `imageTokens`
 *   instead of its base64 text;
 * - output: `max_completion_tokens` / `max_tokens`, else the candidate's `limits.maxOutputTokens`,
 *   else `reserveOutputTokens`; times `n` choices.
 */
import type { RequestContext } from './contract.js';
import type { Candidate, ChatRequest } from './types.js';

export interface TokenBoundRules {
  /** Output tokens assumed when neither the request nor the deployment bounds them. */
  reserveOutputTokens: number;
  /** Tokens one image may cost. */
  imageTokens: number;
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

export function outputLimitOf(request: RequestContext['request'], candidate: Candidate | undefined, fallback: number): number {
  const r = request as ChatRequest;
  return r.max_completion_tokens ?? r.max_tokens ?? candidate?.deployment.limits?.maxOutputTokens ?? fallback;
}

/** The most tokens (input and output) `request` may use on any of `candidates`: what a tokens-a-minute limit holds for it. */
export function reservationTokens(candidates: readonly Candidate[], request: RequestContext['request'], rules: TokenBoundRules): number {
  const inputTokens = inputTokenBound(request, rules.imageTokens);
  const choices = choicesOf(request);
  let output = candidates.length === 0 ? outputLimitOf(request, undefined, rules.reserveOutputTokens) : 0;
  for (const c of candidates) output = Math.max(output, outputLimitOf(request, c, rules.reserveOutputTokens));
  return inputTokens + output * choices;
}

