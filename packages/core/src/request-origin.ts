/**
 * The client's own request beside the unified request decoded from it. An ingress dialect (the
 * gateway's Anthropic Messages or OpenAI Responses route) decodes what it received into a
 * unified `ChatRequest` for routing and for vendors of other dialects, and keeps the original
 * here. A provider that speaks the same dialect sends the original on, with only what routing
 * changes (the upstream model, the stream flag), so nothing the unified shape does not model is
 * lost on the way (cache_control, citations, server tools, signed thinking).
 *
 * Kept with the request object (hidden-slot.ts), like wire bodies: a plugin that changes a request makes a new
 * object (requests are immutable by contract), which has no origin, so a changed request is
 * always encoded from its unified form, with one exception: a continuation built by a provider
 * (ProviderV1.continuation) or the core's prefill keeps the client's body with the partial
 * answer appended in the dialect's own shape (continuation.ts).
 */
import { hiddenSlot } from './hidden-slot.js';

/** A part of the client's request the unified shape cannot carry. */
export interface Untranslatable {
  /** Where it is in the client's body, e.g. `messages[0].content[1]`. */
  readonly path: string;
  /** What it is, for the error a vendor of another dialect gets: `a document block`. */
  readonly what: string;
  /**
   * Its entry in the dialect's translation table (`context_management`, `tool:web_search`):
   * a bounded name for metrics and the `x-switchyard-dropped` header.
   */
  readonly feature?: string;
}

export interface RequestOrigin {
  /** The dialect (wire-formats.ts). */
  readonly format: string;
  /** The client's body as the dialect parsed it (after what routing needs: an expanded conversation). */
  readonly body: Readonly<Record<string, unknown>>;
  /**
   * The client's body as it came (its JSON text), when `body` is that text parsed and nothing
   * changed since: a provider may send it on with only the model replaced (model-splice.ts)
   * instead of serialising the body again.
   */
  readonly text?: string;
  /**
   * `text` as the client's bytes (its UTF-8), when the gateway kept them: a body sent on from
   * them is copied, not encoded again (model-splice.ts). Only with `text` (`setRequestOrigin`
   * drops them from an origin without it), and only when they are exactly its UTF-8 (the gateway
   * leaves them out of a body that was not valid UTF-8).
   */
  readonly bytes?: Uint8Array;
  /** The dialect's own request headers a vendor of the same dialect should get (`anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * What only a vendor of the same dialect can take. Candidates of other providers are skipped
   * before any attempt; when none is left the request fails with a 400 naming the first one.
   */
  readonly untranslatable?: readonly Untranslatable[];
  /**
   * What a vendor of another dialect does without (`context_management`, `cache_control`, a
   * hosted web search tool): left out of what it gets, and disclosed (translation.ts). A
   * deployment with `translate: strict` is skipped instead.
   */
  readonly hints?: readonly Untranslatable[];
}

const origins = hiddenSlot<RequestOrigin>('switchyard.requestOrigin');

/**
 * Keeps the client's request (in its own dialect) with the unified request decoded from it.
 * Bytes go only with their text: an origin made without the text (a continuation's body, a
 * changed one) keeps no bytes, so whoever reads `bytes` may send them as the body.
 */
export function setRequestOrigin(request: object, origin: RequestOrigin): void {
  origins.set(request, origin.bytes !== undefined && origin.text === undefined ? { ...origin, bytes: undefined } : origin);
}

/** The client's request behind this unified request, when it came in `format` (or in any dialect without one). */
export function requestOriginOf(request: object, format?: string): RequestOrigin | undefined {
  const origin = origins.get(request);
  return origin && (format === undefined || origin.format === format) ? origin : undefined;
}
