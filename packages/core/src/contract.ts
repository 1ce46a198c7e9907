/**
 * The pipeline's contract, types only: the pipeline object, the request context every stage
 * works on, and the payloads of the hooks (docs/lifecycle.md). These types refer to each other,
 * so they live together here; implementation files import them and are imported by none of them.
 */
import type { AbortLink, AbortSource } from './abort-link.js';
import type { CallerIdentity } from './caller.js';
import type { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { ChatStream } from './chat-stream.js';
import type { Clock, RandomSource } from './clock.js';
import type { SwitchyardError } from './errors.js';
import type { SwitchyardEventBus } from './events.js';
import type { AttemptOutcome, RequestOutcome } from './outcomes.js';
import type { PIPELINE_MARKER } from './pipeline-marker.js';
import type { PLUGIN_MARKER } from './plugin-marker.js';
import type { ProviderV1 } from './provider.js';
import type { RequestLimits } from './request-limits.js';
import type { StateStore } from './state-store.js';
import type { ZodType } from 'zod';
import type { Candidate, Capability, ChatRequest, ChatResponse, ChatResult, EmbeddingRequest, EmbeddingResponse, EmbeddingResult, EndpointConfig, ModelsConfig, ResponseInfo, StreamPart } from './types.js';

export type { AttemptOutcome, RequestOutcome } from './outcomes.js';

/* ---------------------------------------------------------------- the pipeline */

export interface CallOptions {
  /** Aborts the request: an AbortSignal, or an AbortLink (no AbortSignal is made unless a plugin asks for one). */
  signal?: AbortSource;
  /** Total time for the request, across every attempt and wait (default 120 s). */
  deadlineMs?: number;
  requestId?: string;
  traceparent?: string;
  /** Duplicates with the same key (and model, and caller) get the first request's answer; see idempotency.ts. */
  idempotencyKey?: string;
  /** Who is calling (the gateway's authenticated key): plugins attribute and limit by it; see caller.ts. */
  caller?: CallerIdentity;
  /** The client's session, when it names one beside the request (Claude Code's `X-Claude-Code-Session-Id`): prompt-cache affinity keeps a session on one deployment. */
  sessionId?: string;
  /**
   * The limits the request is checked against before any work (request-limits.ts): a gateway's
   * `server.limits`, so a request its dialect decoded is held to what the operator configured,
   * not to the defaults. Unset fields keep their defaults. Pass the same object every time (it
   * is merged once).
   */
  limits?: Partial<RequestLimits>;
}

export interface Pipeline {
  readonly [PIPELINE_MARKER]: true;
  readonly hooks: PipelineHooks;
  readonly events: SwitchyardEventBus;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly store: StateStore;
  readonly endpoints: readonly EndpointConfig[];
  readonly models: ModelsConfig;
  readonly providers: ReadonlyMap<string, ProviderV1>;
  readonly plugins: readonly Plugin[];
  readonly transport: Transport;
  /** Resolves when every plugin's asynchronous setup is done. */
  readonly ready: Promise<void>;
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  /** Resolves at the stream's commit point (or rejects if every candidate failed before it). */
  stream(request: ChatRequest, options?: CallOptions): Promise<ChatStream>;
  embeddings(request: EmbeddingRequest, options?: CallOptions): Promise<EmbeddingResult>;
  /** The logical models this pipeline serves. */
  modelNames(): string[];
  /** The configured candidates of a logical model, in priority order. */
  candidatesFor(model: string): readonly Candidate[];
  registerProvider(provider: ProviderV1): void;
  /** Closes what the pipeline owns (the transport and store it created or was handed with `owned: true`). */
  close(): Promise<void>;
}

/* ---------------------------------------------------------------- plugins (plugin.ts makes them) */

/** `Input`: what the plugin's factory accepts (the schema's input: defaulted fields optional); `Options`: what `apply` gets. */
export interface PluginDefinition<Options = void, Input = Options> {
  /** The npm package name. */
  name: string;
  version?: string;
  /** Semver range of @switchyard/core this plugin works with. */
  core?: string;
  /** Names of plugins that must be applied before this one. */
  dependencies?: string[];
  optionsSchema?: ZodType<Options, Input>;
  apply(pipeline: Pipeline, options: Options): void | Promise<void>;
}

export interface Plugin<Options = unknown> {
  readonly [PLUGIN_MARKER]: true;
  readonly name: string;
  readonly version?: string;
  readonly core?: string;
  readonly dependencies?: readonly string[];
  /** Parsed options. */
  readonly options: Options;
  apply(pipeline: Pipeline): void | Promise<void>;
}

/* ---------------------------------------------------------------- the request context */

/**
 * Per-plugin state slots. Plugins add their own fields with module augmentation:
 * `declare module '@switchyard/core' { interface RequestState { retry?: RetryState } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface RequestState {
  [plugin: string]: unknown;
}

/** A candidate held back until `until` (the pipeline clock's ms); `rateLimited`: because its vendor rate-limited it. */
export interface CandidateHold {
  candidate: string;
  until: number;
  rateLimited: boolean;
}

export interface RunAttemptOptions {
  signal?: AbortSignal;
  /** Plugin name, recorded on the attempt outcome. */
  initiator?: string;
  /** A different request for this attempt (continuation with an assistant prefill). */
  request?: ChatRequest | EmbeddingRequest;
}

export interface RequestContext {
  readonly id: string;
  readonly kind: 'chat' | 'embeddings';
  readonly request: ChatRequest | EmbeddingRequest;
  /** The logical model asked for. */
  readonly model: string;
  readonly stream: boolean;
  readonly startedAt: number;
  /** Absolute time (clock ms) after which no attempt starts and none continues. */
  readonly deadlineAt: number;
  /** Aborts when the caller cancels or the deadline passes. */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly pipeline: Pipeline;
  /** W3C trace context to propagate upstream. */
  readonly traceparent?: string;
  /** Who is calling, when the host said (`CallOptions.caller`). */
  readonly caller?: CallerIdentity;
  /** The client's session, when the host said (`CallOptions.sessionId`). */
  readonly sessionId?: string;
  classification: Classification;
  /** Every candidate the route stage produced, in order. */
  candidates: Candidate[];
  /** Candidates not tried yet; `next` decisions take the first, after the `failover` hook refined the list. */
  remaining: Candidate[];
  /** The candidate being tried now. */
  current?: Candidate;
  readonly attempts: AttemptOutcome[];
  readonly state: RequestState;
  /**
   * Candidates a policy held back for a while (a cooldown after a 429): when none is left to
   * try, the request fails with the soonest `until` as its Retry-After, as a 429 when every
   * hold is a rate limit.
   */
  readonly holds: CandidateHold[];
  /** Settle the request early (a cache hit); works in classify and route. */
  respond(response: ChatResponse): void;
  /** Start an attempt on a candidate (hedging); it goes through `call` and `recordAttempt`. */
  runAttempt(candidate: Candidate, options?: RunAttemptOptions): Promise<AttemptResult>;
  /** Milliseconds left before the request deadline. */
  timeLeft(): number;
  /** The errors of the failed attempts so far. */
  errors(): SwitchyardError[];
}

/* ---------------------------------------------------------------- hook payloads */

export interface Classification {
  /** Name of the tier whose options apply (hedging, commit point). */
  tier?: string;
  /** Capabilities a deployment needs to serve this request. */
  capabilities: Set<Capability>;
  /** Rough prompt size: characters / 4. */
  estimatedInputTokens: number;
  costTolerance?: number;
  stream: boolean;
  /** Where a stream commits: at the first content token (default) or at the end of the answer. */
  commit: 'first-token' | 'end';
  /**
   * A plugin reads a streamed answer's content when the request ends (the cache storing it, a
   * quality check): set it in `classify`. A pass-through stream is then decoded once, at its end,
   * from the kept text (kept-stream.ts); otherwise its text after the commit point is never decoded
   * and `recordRequest` sees the answer's model, finish reason and usage without its content.
   */
  keepAnswer?: boolean;
}

export interface Attempt {
  /** 1-based attempt number within the request. */
  number: number;
  candidate: Candidate;
  /** What to send: the request, or a plugin's variant of it (a continuation prefill). */
  request: ChatRequest | EmbeddingRequest;
  stream: boolean;
  /** Made on first read: the core's own links use `abort`. */
  readonly signal: AbortSignal;
  /** The attempt's abort without an AbortSignal (set by the core; what the built-in transport listens on). */
  abort?: AbortLink;
  startedAt: number;
  /** Who started it: the core loop or a plugin (`ctx.runAttempt`). */
  initiator: 'core' | string;
  /** W3C trace context sent upstream with this attempt (a tracing plugin sets its attempt span; default: the caller's). */
  traceparent?: string;
  /**
   * Fields the answer's `switchyard` info gets when this attempt answers: a `call` tap that
   * changed what is sent (a shortened prompt in `request`) says so here, and the caller sees it.
   */
  answerInfo?: Partial<ResponseInfo>;
  /** The response headers arrived: switch the attempt's timer to the first-token limit. */
  headersReceived(): void;
  /**
   * What the transport knows of the request's body: `pending` once it will tell (the built-in
   * transport does), `written` when the last byte was written to the socket. Optional: an
   * `Attempt` made outside the core may leave it out (then nobody knows).
   */
  requestProgress?(state: 'pending' | 'written'): void;
  /** A chunk arrived: push the idle limit back. */
  chunkReceived(): void;
  /** The first content token arrived: from now on only the idle limit applies. */
  committed(): void;
}

export type AttemptResult =
  | { type: 'response'; response: ChatResponse; headers?: Record<string, string> }
  | { type: 'embeddings'; response: EmbeddingResponse; headers?: Record<string, string> }
  | {
      type: 'stream';
      /** Parts up to and including the commit point. */
      head: StreamPart[];
      /** The rest of the stream; it ends with a `finish` part or throws / yields an `error` part. */
      rest: AsyncIterator<StreamPart>;
      headers?: Record<string, string>;
    };

export type StreamAttemptResult = Extract<AttemptResult, { type: 'stream' }>;

export type RetryDecision =
  /** Try `candidate` (default: the same one) again after `delayMs`. */
  | { action: 'retry'; delayMs: number; candidate?: Candidate; reason?: string }
  /** Move on to the next remaining candidate. */
  | { action: 'next'; reason?: string }
  /** Stop trying candidates: the degrade stage runs, then the request fails. */
  | { action: 'fail'; reason?: string };

export type DegradeResult =
  | { level: string; response: ChatResponse }
  /**
   * Extra candidates (cheaper or local models); each runs once, without retries. With
   * `request`, they are sent that variant instead (a smaller `max_tokens`).
   */
  | { level: string; candidates: Candidate[]; request?: ChatRequest };

export interface StreamInterruption {
  error: SwitchyardError;
  candidate: Candidate;
  /** The answer the caller has received so far. */
  partial: ChatResponse;
}

/* ---------------------------------------------------------------- the hooks */

// A type alias (not an interface) so the hooks read as a plain record of hooks.
export type PipelineHooks = {
  /** Waterfall: refine the classification; a tap may settle the request with `ctx.respond()`. */
  readonly classify: AsyncSeriesWaterfallHook<[Classification, RequestContext]>;
  /** Waterfall: filter and order candidates. */
  readonly route: AsyncSeriesWaterfallHook<[Candidate[], Classification, RequestContext]>;
  /** Bail per provider id: the first tap that answers runs the attempt. */
  readonly call: HookMap<AsyncSeriesBailHook<[Attempt, RequestContext], AttemptResult | undefined>>;
  /** Every attempt's outcome, awaited before the next decision. Taps must not throw (the core contains them). */
  readonly recordAttempt: AsyncSeriesHook<[AttemptOutcome, RequestContext]>;
  /** Bail: the first tap with a decision wins; none = the built-in default. */
  readonly retry: AsyncSeriesBailHook<[AttemptOutcome, RequestContext], RetryDecision | undefined>;
  /** Waterfall, after a `next` decision and before the next candidate is taken: filter and reorder the remaining candidates. */
  readonly failover: AsyncSeriesWaterfallHook<[Candidate[], AttemptOutcome, RequestContext]>;
  /** Bail, only when every candidate failed: a final answer or extra candidates. */
  readonly degrade: AsyncSeriesBailHook<[SwitchyardError, RequestContext], DegradeResult | undefined>;
  /** Bail, when a committed stream fails: a continuation of the answer elsewhere. */
  readonly continueStream: AsyncSeriesBailHook<[StreamInterruption, RequestContext], AsyncIterable<StreamPart> | undefined>;
  /** Parallel: the final outcome, for metrics, logs and usage reports. */
  readonly recordRequest: AsyncParallelHook<[RequestOutcome, RequestContext]>;
  /** Parallel, once, as the pipeline closes and before the store and transport it owns do: a plugin's background work (writes no answer waited for) ends here. */
  readonly close: AsyncParallelHook<[]>;
};

/* ---------------------------------------------------------------- the upstream transport */

export interface TransportRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** `body` as its UTF-8 bytes, when the core has them without encoding it (a client's own body sent on): a transport that sends bytes should send these. */
  bodyBytes?: Uint8Array;
  signal: AbortSignal;
  /** The same abort as `signal`, free until it fires; set by the core. A transport that can should listen here (reading `signal` makes one). */
  abort?: AbortLink;
  /** Called once the body was fully written to the socket (transports with `reportsRequestSent`). */
  onRequestSent?: () => void;
}

export interface TransportResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array>;
  /** Drops the connection without reading the rest of the body (failures, aborts). */
  discard(): void;
  /**
   * The answer is complete but the body may not have ended yet (bytes after `[DONE]`): read
   * the rest in the background, briefly, so the keep-alive connection can be reused.
   */
  release?(): void;
  /** Reads the whole body as text (faster than iterating `body` when the transport has it); past `limitBytes` it drops the connection and rejects with a coded `server` error. */
  text?(limitBytes?: number): Promise<string>;
}

export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /** True when it calls `onRequestSent` for every request whose body was written (attempts that never left are then not billed). */
  readonly reportsRequestSent?: boolean;
  /** How many connections it opens to one origin at most (policies that share them out read it); unset when unknown. */
  readonly connectionsPerOrigin?: number;
  /** Opens a connection to the URL's origin ahead of need (warm backups); false when it could not. */
  preconnect?(url: string): Promise<boolean>;
  close?(): Promise<void>;
}
