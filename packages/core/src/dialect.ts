/**
 * `@switchyard/core/dialect`: the ingress dialect contract, the mirror image of `ProviderV1`.
 * A provider codec turns the unified request into a vendor's wire format and the vendor's
 * answer back; a dialect turns what a client sends in its API into the unified request, and
 * unified answers, stream parts and errors back into that API. The gateway runs every dialect
 * with one runner (decode → pipeline → same-format fast path → encode → errors), so a dialect
 * is pure codec: it never sees a socket, and reads the caller's key from headers and query.
 *
 * It lives in core, outside the main entry, so a provider package can export its wire
 * format's dialect beside its codec (one vocabulary per format) without depending on the
 * gateway.
 */
import type { CallerIdentity } from './caller.js';
import type { StreamInfo } from './chat-stream.js';
import type { Clock } from './clock.js';
import type { RequestLimits } from './request-limits.js';
import type { StateStore } from './state-store.js';
import type { ChatRequest, ChatResponse, EmbeddingRequest, EmbeddingResponse, StreamPart } from './types.js';

/** Request headers by lower-case name (node's `IncomingHttpHeaders` is one). */
export type DialectHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The gateway's own error reply, before a dialect renders it: an OpenAI-shaped body with the
 * status, type and code the gateway gave the failure, and the headers it advises
 * (`retry-after`, `x-should-retry`). A dialect maps it to its clients' statuses and shape.
 */
export interface GatewayErrorReply {
  status: number;
  body: { error: { message: string; type: string; param: string | null; code: string | null } };
  headers: Record<string, string>;
}

/** A `GatewayErrorReply` from its parts. */
export function errorReply(status: number, message: string, type: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}): GatewayErrorReply {
  return { status, body: { error: { message, type, param, code } }, headers };
}

/** An error as a dialect writes it: its status, its body, its headers. */
export interface WireError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** What a route does; the runner owns everything around it (auth, limits, failover, errors). */
export type DialectOperation = 'generate' | 'count-tokens' | 'embed' | 'models' | 'model' | 'custom';

/** How a client presents its gateway key. */
export type CredentialReader = (headers: DialectHeaders, query: URLSearchParams) => string | undefined;

export interface DialectRouteV1 {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /**
   * The path: literal segments, `{name}` for one segment's worth (it may end at a literal
   * suffix: `/v1beta/models/{model}:generateContent`), `{name*}` for the rest of the path.
   */
  readonly path: string;
  readonly operation: DialectOperation;
  /** `generate` routes that always stream (Gemini's `:streamGenerateContent`). */
  readonly stream?: boolean;
  /**
   * A path several dialects serve (`GET /v1/models`) is answered by the first dialect that
   * claims the request by its headers or query; a route without `claims` takes the rest.
   */
  claims?(headers: DialectHeaders, query: URLSearchParams): boolean;
  /** `custom` routes: the whole answer (stored objects, listings). */
  handle?(call: DialectCall, context: DialectContext): Promise<DialectReply>;
}

/** One request as a dialect sees it. */
export interface DialectCall {
  readonly route: DialectRouteV1;
  readonly headers: DialectHeaders;
  readonly query: URLSearchParams;
  /** The `{name}` segments of the route's path, as they were in the URL (percent-encoded). */
  readonly params: Readonly<Record<string, string>>;
  /** A POST's JSON body, parsed (the gateway checked it against its limits). */
  readonly body: unknown;
  /** The body's text as the client sent it. */
  readonly bodyText?: string;
  /** `bodyText` as the client's bytes, when they are exactly its UTF-8: what a dialect keeps beside the text (`RequestOrigin.bytes`). */
  readonly bodyBytes?: Uint8Array;
}

export interface StoredObjectCaps {
  readonly maxBytesPerKey: number;
  readonly maxBytes: number;
  readonly maxConversationBytes: number;
}

/** What the gateway lends a dialect for one request. */
export interface DialectContext {
  readonly store: StateStore;
  readonly clock: Clock;
  readonly caller?: CallerIdentity;
  /**
   * Whose stored objects this request's are (Responses' `store: true`): a virtual key's id;
   * absent for the operator's own keys, which share theirs (a rotated key too).
   */
  readonly owner?: string;
  readonly requestId: string;
  /** The gateway's request limits (`server.limits`). */
  readonly limits?: Partial<RequestLimits>;
  /** How long stored objects (Responses' `store: true`) live. */
  readonly storeTtlMs: number;
  /** Bounds of stored objects (`server.responseStore`): bytes per caller and in all, and of one conversation expanded from storage. */
  readonly storeCaps: StoredObjectCaps;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** A part of the client's request and what it is (`messages[0].content[1]`, `a document block`). */
export interface RequestFeature {
  readonly path: string;
  readonly what: string;
  /** Its entry in the dialect's translation table (`context_management`, `tool:web_search`). */
  readonly feature?: string;
}

/**
 * What becomes of a part of a client's request when it goes to a vendor of another API:
 * `carried` (translated), `hint` (that vendor does without it: dropped and disclosed, or the
 * deployment skipped under `translate: strict`), `capability` (the answer depends on it and only
 * a vendor of the client's API can do it: other vendors are skipped).
 */
export type Treatment = 'carried' | 'hint' | 'capability';

export interface TableEntry {
  readonly treatment: Treatment;
  /** What it is, as errors and the docs name it. */
  readonly what: string;
}

/**
 * A dialect's translation policy: every top-level field (`context_management`), content part
 * (`block:thinking`), input item (`item:custom_tool_call`), tool type (`tool:web_search`) and
 * header (`header:anthropic-beta`) its decoder knows, and its treatment. A decoder that meets
 * something its table does not list treats it as a capability (feature `unlisted`): a test over
 * the agents' real request shapes fails on it.
 */
export type TranslationTable = Readonly<Record<string, TableEntry>>;

/** Records what a decoder met, by its table: hints and capabilities, each feature once (its first path). */
export class FeatureRecorder {
  readonly hints: RequestFeature[] = [];
  readonly capabilities: RequestFeature[] = [];
  /** Keys met that the table does not list. */
  readonly unlisted: string[] = [];

  constructor(private readonly table: TranslationTable) {}

  /** The treatment of `key` met at `path` (an unlisted key is a capability). `what` overrides the table's words. */
  meet(key: string, path: string, what?: string): Treatment {
    const entry = this.table[key];
    if (!entry) {
      if (!this.unlisted.includes(key)) this.unlisted.push(key);
      this.capabilities.push({ path, what: what ?? `the unlisted ${key}`, feature: 'unlisted' });
      return 'capability';
    }
    if (entry.treatment === 'carried') return 'carried';
    const list = entry.treatment === 'hint' ? this.hints : this.capabilities;
    // Hints are disclosed by feature: the first path is enough. Capabilities keep each path (the error names the first).
    if (entry.treatment === 'capability' || !list.some((f) => f.feature === key)) list.push({ path, what: what ?? entry.what, feature: key });
    return entry.treatment;
  }
}

/**
 * A decoded request. `request` is what the pipeline routes; the client's own body is kept as
 * its origin (core's request-origin.ts) so a vendor of the same format gets it as it came.
 */
export interface DecodedRequest {
  readonly request: ChatRequest;
  readonly stream: boolean;
  /** What other vendors do without (dropped for them): the translation policy discloses these. */
  readonly hints: readonly RequestFeature[];
  /** What the answer depends on and only a vendor of this format can do: other vendors are skipped. */
  readonly capabilities: readonly RequestFeature[];
  /** Renames the fields an error names into the client's own (a translated request's paths). */
  inClientTerms?(error: unknown): unknown;
  /**
   * Runs with the final JSON answer's text (and the answer it is) before the client gets it (a
   * store that must hold it first). A text it returns is sent instead (a vendor's id replaced by
   * the gateway's).
   */
  settle?(text: string, response?: ChatResponse): Promise<string | void>;
}

/** Writes one stream's parts in a dialect's framing (one instance per stream). */
export interface StreamEncoder {
  /** Text for a part ('' when the part adds nothing by itself). */
  encode(part: StreamPart): string;
  /** The closing text of a stream that finished (a promise when something must happen before the client sees it). */
  end(): string | Promise<string>;
  /** The closing text of a stream that failed after its head, when it depends on what was sent (default: the dialect's `streamError`). */
  fail?(reply: GatewayErrorReply): string;
}

/** A stream's framing when it is not SSE (Gemini's JSON array stream). */
export interface StreamFraming {
  readonly contentType: string;
  /** What keeps an idle connection open before the commit point (SSE: a comment). */
  readonly heartbeat: string;
  /**
   * What the stream is when it fails after heartbeats, before any chunk (Gemini's JSON array:
   * `[{"error":…}]`); default: the dialect's `streamError`.
   */
  error?(reply: GatewayErrorReply): string;
}

/** A whole answer a route writes itself. */
export interface DialectReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface TokenCount {
  readonly tokens: number;
  /** Counted by a vendor's endpoint, or estimated by the gateway. */
  readonly exact: boolean;
}

/**
 * A dialect. `D` is what its decoder returns (a dialect may carry its own per-request state
 * from decoding to encoding in it).
 */
export interface DialectV1<D extends DecodedRequest = DecodedRequest> {
  readonly specificationVersion: 'v1';
  /** The wire format (core's wire-formats.ts), e.g. `anthropic.messages`: the same-format fast path compares it. */
  readonly id: string;
  readonly routes: readonly DialectRouteV1[];
  /** The gateway key as this dialect's clients present it (default: `Authorization: Bearer`). */
  credential?: CredentialReader;

  /** A `generate` route's body → the unified request (a 400 naming the client's field when malformed). */
  decodeRequest(call: DialectCall, context: DialectContext): D | Promise<D>;
  /** A unified answer → this dialect's JSON body (not called when the vendor's own text passes through). */
  encodeResponse(response: ChatResponse, decoded: D): unknown;
  createStreamEncoder(info: StreamInfo, decoded: D): StreamEncoder;
  /** The stream's framing for this request, when not SSE. */
  streamFraming?(decoded: D): StreamFraming | undefined;

  /** A gateway error in this dialect's shape and statuses (default: as it is). `error` is what it was made from. */
  renderError?(reply: GatewayErrorReply, error?: unknown): WireError;
  /** What a stream that already sent its head ends with on failure. */
  streamError(reply: GatewayErrorReply): string;

  /** `count-tokens` routes: the request to count, and the count in this dialect's shape. */
  countTokens?: {
    decode(call: DialectCall): Pick<DecodedRequest, 'request' | 'inClientTerms'>;
    encode(count: TokenCount): unknown;
  };
  /** `embed` routes. */
  embeddings?: {
    decode(call: DialectCall): EmbeddingRequest;
    encode(response: EmbeddingResponse, call: DialectCall): unknown;
  };
  /** `models` / `model` routes: the logical models a caller may use, in this dialect's shape. */
  models?: {
    list(models: readonly string[], created: number): unknown;
    /** One model; the runner answers 404 in the dialect's shape for a model it does not serve. */
    one(model: string, created: number): unknown;
  };
}

/** Declares a dialect (a typed identity, like `defineProvider`). */
export function defineDialect<D extends DecodedRequest>(dialect: DialectV1<D>): DialectV1 {
  return dialect as unknown as DialectV1;
}

/** The bearer token of an `Authorization` header (`Bearer <key>`), if any. */
export function bearerToken(authorization: string | readonly string[] | undefined): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1] : undefined;
}

/** The default credential: `Authorization: Bearer <key>`. */
export const bearerCredential: CredentialReader = (headers) => bearerToken(headers.authorization);

/** A header's single value (the first, when repeated). */
export function headerValue(headers: DialectHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

/** SSE framing: one `event:`/`data:` record. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

/** A top-level field of a client's body met in `recorder`'s table (a name with `:` is never a table key). */
export function meetField(recorder: { meet(key: string, path: string, what?: string): unknown }, key: string, table: TranslationTable): void {
  const listed = !key.includes(':') && Object.hasOwn(table, key);
  recorder.meet(listed ? key : `field:${key}`, key, listed ? undefined : `the field "${key}"`);
}
