/**
 * What a fault needs to know about a vendor's wire: how its bodies, errors and SSE events look.
 * Each vendor implements this once (wire/*.ts); the fault catalogue is vendor-agnostic.
 */

export type Vendor = 'openai' | 'anthropic' | 'gemini';
export const VENDORS: readonly Vendor[] = ['openai', 'anthropic', 'gemini'];

/** The request as a fault sees it (parsed once, shared by msw and the fault server). */
export interface FaultRequest {
  method: string;
  url: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON body; undefined when absent or not JSON. */
  body: unknown;
}

/** Per-answer facts a wire needs to render ids, model names and usage. */
export interface WireContext {
  request: FaultRequest;
  stream: boolean;
  model: string;
  /** 1-based count of answers this fault gave; makes ids unique and deterministic. */
  index: number;
}

/** Error faults every vendor can render (status and body in its own dialect). */
export type WireErrorName =
  | 'rate-limited'
  | 'server-error'
  | 'unavailable'
  | 'overloaded'
  | 'context-length'
  | 'prefill-rejected'
  | 'key-invalid'
  | 'out-of-credit';

export interface WireErrorOptions {
  /** Retry-After in seconds (`rate-limited`); Gemini puts it in the body's RetryInfo. */
  retryAfterS?: number;
  /** Override the vendor's usual status (e.g. 402 for DeepSeek-style `out-of-credit`). */
  status?: number;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A 200 answer delivered as SSE events (a refusal streamed the vendor's way). */
export interface WireStreamAnswer {
  status: number;
  headers: Record<string, string>;
  events: string[];
}

export interface VendorWire {
  readonly vendor: Vendor;
  readonly defaultBaseUrl: string;
  /** True when the URL (under baseUrl) is one of this vendor's generation endpoints. */
  matches(url: string, baseUrl: string): boolean;
  isStream(request: FaultRequest): boolean;
  modelOf(request: FaultRequest): string;
  /** True when the conversation ends with an assistant turn (a prefill). */
  endsWithPrefill(request: FaultRequest): boolean;
  headers(ctx: WireContext): Record<string, string>;
  completion(ctx: WireContext, text: string, outputTokens: number): string;
  /** SSE events before the first content token (role chunk, message_start…). */
  streamStart(ctx: WireContext): string[];
  streamToken(ctx: WireContext, text: string, position: number): string;
  /** The finish signal (finish_reason / stop_reason / finishReason) and final usage; `text` is the whole answer sent. */
  streamFinish(ctx: WireContext, outputTokens: number, text?: string): string[];
  /** What follows the finish signal: `[DONE]`, `message_stop`, or nothing (Gemini). */
  streamTerminator(ctx: WireContext): string[];
  /** An error reported inside a 200 stream, after `sentTokens` content tokens. */
  streamError(ctx: WireContext, sentTokens?: number): string;
  /** One event whose JSON is broken, framed the vendor's way. */
  malformedEvent(ctx: WireContext): string;
  error(ctx: WireContext, name: WireErrorName, options?: WireErrorOptions): WireResponse;
  /** The vendor's content-filter answer: an error (OpenAI/Azure) or a 200 refusal (others). */
  contentFilter(ctx: WireContext): WireResponse | WireStreamAnswer;
}

export const PROMPT_TOKENS = 12;

export function jsonHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', ...extra };
}

export function lastMessageRole(body: unknown, field: 'messages' | 'contents' | 'input'): string | undefined {
  const list = (body as Record<string, unknown> | undefined)?.[field];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return (list[list.length - 1] as { role?: string } | undefined)?.role;
}

export function pathUnder(url: string, baseUrl: string): string | undefined {
  const base = baseUrl.replace(/\/+$/, '');
  const clean = url.split('?')[0]!;
  return clean.startsWith(base) ? clean.slice(base.length) : undefined;
}
