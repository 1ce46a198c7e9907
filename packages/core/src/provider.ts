/**
 * The provider specification (v1). A provider is a codec: it turns a unified request into a
 * vendor HTTP request and the vendor's answers back into unified types. The core owns the
 * transport, so timeouts, the commit point and aborts are written once.
 */
import type { ResponseLimits } from './response-limits.js';
import type { SwitchyardError } from './errors.js';
import type { SseEvent } from './sse.js';
import type { Candidate, ChatRequest, DroppedPart, EndpointConfig, ChatResponse, EmbeddingRequest, EmbeddingResponse, StreamPart, Capability } from './types.js';

export const PROVIDER_MARKER = Symbol.for('switchyard.provider');

export interface ProviderRequest {
  method: 'GET' | 'POST';
  /** Appended to the endpoint's baseUrl (or the provider's default base URL). */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * `body` as its UTF-8 bytes, when the codec has them without encoding it (the client's own
   * body with the model spliced in: model-splice.ts). The transport sends these; they must be
   * exactly `body`'s UTF-8.
   */
  bodyBytes?: Uint8Array;
}

export interface ProviderHttpResponse {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The body parsed as JSON when it is JSON, otherwise undefined. */
  json: unknown;
  /** The raw body text. */
  text: string;
}

/** An SSE event with its data already parsed as JSON by the core (malformed JSON never reaches a decoder). */
export interface DecodedSseEvent extends SseEvent {
  json: unknown;
}

export interface StreamDecoder {
  /** Parts for one event. An `error` part before the first token fails over; after it, ends the stream. */
  push(event: DecodedSseEvent): StreamPart[];
  /** Called once when the body ends. */
  end(): StreamPart[];
  /** True once the vendor's terminal event arrived (Anthropic `message_stop`): the core stops reading. */
  readonly done?: boolean;
  /**
   * The dialect these events are in (wire-formats.ts). When the request came in the same one,
   * the core keeps each event's text with its parts so the gateway can send it on (wire-events.ts).
   */
  readonly wireFormat?: string;
  /**
   * Whether the event just pushed can reach a client of `wireFormat` as the vendor wrote it
   * (default: yes). An event this decoder had to normalise (a synthetic tool-call id, a
   * renamed field) answers false: its parts are encoded instead.
   */
  forwardable?(event: DecodedSseEvent): boolean;
  /**
   * Lazy pass-through (kept-stream.ts): whether an event after the commit point must be decoded
   * as it comes, given its SSE text (one event, LF line ends, ending with a blank line). True for
   * what a decision needs: the finish signal, usage, an error, state forwarding depends on. An
   * event this answers false for reaches a client of `wireFormat` as the vendor wrote it,
   * undecoded, and is decoded later only if the whole answer is needed. Scan the text for keys
   * and event names (a key's quotes are never both bare inside a JSON string, so text content
   * cannot fake one). Without this method every event is decoded.
   */
  readAfterCommit?(eventText: string): boolean;
  /**
   * `readAfterCommit` for the event `text.slice(start, end)` of a chunk, without cutting it out:
   * events are asked about in order, so a decoder can search the chunk once (wire's `KeyScan`).
   * Used instead of `readAfterCommit` when a decoder has both; it must answer the same.
   */
  readAfterCommitIn?(text: string, start: number, end: number): boolean;
  /**
   * Lazy pass-through: whether the event `text.slice(start, end)` yields no part whatever came
   * before it (`ping`, `response.in_progress`), read as `readAfterCommitIn` reads. Before the
   * commit point such an event is kept for the next part's text without being parsed. Without
   * this method every event before the commit point is parsed.
   */
  partlessIn?(text: string, start: number, end: number): boolean;
}

/** Why a provider cannot send a request to a target: the field, and what about it. */
export interface Unsupported {
  /** Where it is in the request, e.g. `messages[0].content[1]`. */
  path: string;
  /** Why, naming what the target lacks: `a PDF document (deepseek has no document input)`. */
  reason: string;
}

/** One currency's funds of a vendor account, as its balance endpoint reports them. */
export interface AccountBalance {
  currency: string;
  /** What calls can still spend. */
  available: number;
  /** False when the vendor says calls will be refused (no balance left). */
  usable: boolean;
  /** The vendor's own breakdown (granted / topped up, voucher / cash). */
  parts?: Record<string, number>;
}

/** How to ask a vendor for an account's balance: the request, and how to read its 2xx answer. */
export interface BalanceQuery {
  /** Absolute: a balance route need not sit under the chat API's base URL. */
  url: string;
  method: 'GET';
  headers: Record<string, string>;
  /** Throws when the answer is not a balance. */
  parse(response: ProviderHttpResponse): AccountBalance[];
}

export interface EndpointReport {
  /** Each names the setting, e.g. `region: bedrock needs a region (endpoint region or AWS_REGION)`. */
  problems: string[];
  /** Where credentials come from, e.g. `web identity (arn:aws:iam::1:role/x)`. */
  credentials?: string;
}

export interface BuildOptions {
  stream: boolean;
}

/** A codec's request as it goes on the wire: the whole URL, every header, the body. */
export interface WireRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** `ProviderRequest.bodyBytes`, carried to the transport. */
  bodyBytes?: Uint8Array;
}

/**
 * Turns a streamed body that is not SSE (AWS event-stream frames) into events for the
 * provider's StreamDecoder. A frame that proves the stream broken (a CRC mismatch) or a vendor
 * exception frame throws a SwitchyardError: before the commit point it fails over like any error.
 */
export interface FrameDecoder {
  push(chunk: Uint8Array): SseEvent[];
  end(): SseEvent[];
}

export interface ProviderV1 {
  readonly [PROVIDER_MARKER]?: true;
  readonly specificationVersion: 'v1';
  readonly id: string;
  /** Used when an endpoint has no baseUrl. */
  readonly defaultBaseUrl?: string;
  /** The base URL an endpoint without baseUrl gets from its own settings (a cloud region or location); before `defaultBaseUrl`. */
  baseUrlFor?(endpoint: EndpointConfig): string | undefined;
  /**
   * Headers that authorise `request` just before it is sent (a SigV4 signature over the final
   * URL, headers and body; an OAuth access token). Asynchronous because credentials are fetched
   * and refreshed. Failing to get credentials throws an `auth` SwitchyardError (a key failure).
   */
  authorize?(request: WireRequest, target: Candidate, signal?: AbortSignal): Promise<Record<string, string>>;
  /** The framing of a streamed body when it is not SSE (default: SSE); one frame past `limits.maxEventChars` bytes fails with `responseTooLarge`. */
  createFrameDecoder?(target: Candidate, limits: Readonly<ResponseLimits>): FrameDecoder;
  /** Capabilities every deployment of this provider has unless its config says otherwise. */
  readonly defaultCapabilities?: readonly Capability[];
  buildRequest(request: ChatRequest, target: Candidate, options: BuildOptions): ProviderRequest;
  parseResponse(response: ProviderHttpResponse, target: Candidate): ChatResponse;
  createStreamDecoder(target: Candidate, request: ChatRequest): StreamDecoder;
  classifyError(response: ProviderHttpResponse, target: Candidate): SwitchyardError;
  /**
   * True when this provider can send a request that arrived in `format` (wire-formats.ts) to
   * `target` as the client wrote it (request-origin.ts): it then builds from the original body.
   */
  speaks?(format: string, target: Candidate): boolean;
  /**
   * A field of the unified request this provider cannot express for `target` (a document part
   * to a vendor without document input). Checked before any attempt: such a target is skipped,
   * and a request no target can take fails with a 400 naming the field, before any vendor call.
   */
  unsupported?(request: ChatRequest, target: Candidate): Unsupported | undefined;
  /**
   * What this provider leaves out of `request` for `target` and the answer does without (an
   * `anthropic-beta` value a cloud does not take): disclosed with the answer like a dialect's
   * dropped hints (translation.ts: `x-switchyard-dropped`, `field:dropped`, the access line).
   */
  drops?(request: ChatRequest, target: Candidate): readonly DroppedPart[] | undefined;
  /**
   * The request that continues a cut answer (`partialText`, what the client already holds) on
   * `target`, a deployment other than `from`, the one that was cut: in the client's dialect
   * where this provider speaks it, with state bound to `from` (signed thinking) removed. Undefined
   * when no continuation on `target` would be valid (Anthropic refuses a prefill with thinking on
   * unless thinking can be turned off): the stream then ends with its error rather than sending
   * a request that poisons the session. Without this method the core prefills the unified request.
   */
  continuation?(request: ChatRequest, partialText: string, target: Candidate, from: Candidate): ChatRequest | undefined;
  /**
   * A repaired request for a vendor refusal that one known change fixes (Anthropic's "invalid
   * signature in thinking block": the earlier turns' thinking stripped). The core retries it once
   * on the same deployment instead of failing over; undefined when `error` is not such a refusal.
   */
  repair?(request: ChatRequest, error: SwitchyardError, target: Candidate): ChatRequest | undefined;
  /**
   * What `switchyard validate` says about an endpoint beyond the schema: settings this provider
   * needs that are missing or unusable (a region, a project, a credentials file), and where its
   * credentials will come from when they are not the endpoint's key.
   */
  describeEndpoint?(endpoint: EndpointConfig): EndpointReport;
  /** A cheap health request (`GET /models` style). */
  probe?(target: Candidate): ProviderRequest;
  /**
   * A mistake in an endpoint's config that would fail every request at run time (an Anthropic
   * base URL without `/v1`, an Azure URL with the deployment path in it): what is wrong and what
   * to write instead. Checked when the config is loaded (`validate`, `serve`).
   */
  checkEndpoint?(endpoint: EndpointConfig): string | undefined;
  /**
   * The account balance of `target`'s key, where the vendor has an endpoint for it (DeepSeek,
   * Moonshot); undefined when it has none. Policy plugins poll it (`@switchyard/plugin-balance`).
   */
  balance?(target: Candidate): BalanceQuery | undefined;
  buildEmbeddingsRequest?(request: EmbeddingRequest, target: Candidate): ProviderRequest;
  parseEmbeddingsResponse?(response: ProviderHttpResponse, target: Candidate): EmbeddingResponse;
  /**
   * The vendor's own count of a request's input tokens (Anthropic `/messages/count_tokens`,
   * Gemini `countTokens`). The gateway's count endpoints send it through the pipeline's
   * transport; a provider without it is answered with an estimate.
   */
  buildCountTokensRequest?(request: ChatRequest, target: Candidate): ProviderRequest;
  /** The input token count in the vendor's answer to `buildCountTokensRequest`. */
  parseCountTokensResponse?(response: ProviderHttpResponse, target: Candidate): number;
}

export function defineProvider<P extends Omit<ProviderV1, typeof PROVIDER_MARKER>>(provider: P): P & ProviderV1 {
  return Object.assign(provider, { [PROVIDER_MARKER]: true as const });
}

export function isProvider(value: unknown): value is ProviderV1 {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PROVIDER_MARKER] === true;
}
