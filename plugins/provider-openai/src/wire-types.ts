/**
 * The Chat Completions wire shapes as OpenAI and the compatible vendors send them. Every field
 * is optional and loosely typed: vendors omit, null out or rename fields, so the codec reads
 * them defensively instead of trusting a schema.
 */

export interface WireToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface WireMessage {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  tool_calls?: WireToolCall[] | null;
  /** DeepSeek, vLLM (older). */
  reasoning_content?: string | null;
  /** Ollama, OpenRouter, vLLM (newer). */
  reasoning?: string | null;
  [extra: string]: unknown;
}

export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek. */
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
  [extra: string]: unknown;
}

export interface WireChoice {
  index?: number;
  message?: WireMessage;
  delta?: WireMessage;
  finish_reason?: string | null;
  [extra: string]: unknown;
}

export interface WireErrorObject {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  param?: unknown;
  status?: unknown;
  innererror?: { code?: unknown; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** A completion, a stream chunk, or an error body: the codec tells them apart by their fields. */
export interface WireBody {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: WireChoice[];
  usage?: WireUsage | null;
  /** Groq repeats usage here on the finish chunk. */
  x_groq?: { usage?: WireUsage; [extra: string]: unknown };
  error?: WireErrorObject | string;
  /** vLLM's flat error body: `{object: 'error', message, type, code: int}`. */
  message?: unknown;
  type?: unknown;
  code?: unknown;
  [extra: string]: unknown;
}

export function asWireBody(value: unknown): WireBody | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as WireBody) : undefined;
}

/** Top-level fields the unified shape already carries; everything else is vendor metadata. */
const CORE_FIELDS = new Set(['id', 'object', 'created', 'model', 'choices', 'usage', 'error', 'obfuscation']);

/** Vendor extras of a body (`system_fingerprint`, `service_tier`, `prompt_filter_results`, `x_groq`…). */
export function vendorExtras(body: WireBody): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  // for…in, not Object.entries: no array of pairs per answer.
  for (const key in body) {
    const value = (body as Record<string, unknown>)[key];
    if (!CORE_FIELDS.has(key) && value !== null && value !== undefined) extras[key] = value;
  }
  return extras;
}
