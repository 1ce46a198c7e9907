/**
 * The request lifecycle as tapable hooks (see docs/lifecycle.md). Hooks change behaviour;
 * the event bus only observes.
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { OutcomeClass, SwitchyardError } from './errors.js';
import type { RequestContext } from './context.js';
import type { Candidate, Capability, ChatResponse, EmbeddingResponse, StreamPart, Usage } from './types.js';

/** Tap stages: plugins order themselves with `{ stage: STAGE.X }`. */
export const STAGE = Object.freeze({
  /** Before everything: validation, tracing, request rewriting. */
  FIRST: -1000,
  /** Filters that remove candidates (breaker, quota, cooldown) before ordering. */
  FILTER: -100,
  /** The built-in defaults and ordinary plugins. */
  DEFAULT: 0,
  /** Ordering that wants to see the filtered list (router strategies). */
  ORDER: 100,
  /** After everything: observers and last-resort fallbacks. */
  LAST: 1000,
});

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
}

export interface Attempt {
  /** 1-based attempt number within the request. */
  number: number;
  candidate: Candidate;
  /** What to send: the request, or a plugin's variant of it (a continuation prefill). */
  request: import('./types.js').ChatRequest | import('./types.js').EmbeddingRequest;
  stream: boolean;
  signal: AbortSignal;
  startedAt: number;
  /** Who started it: the core loop or a plugin (`ctx.runAttempt`). */
  initiator: 'core' | string;
  /** W3C trace context sent upstream with this attempt (a tracing plugin sets its attempt span; default: the caller's). */
  traceparent?: string;
  /** The response headers arrived: switch the attempt's timer to the first-token limit. */
  headersReceived(): void;
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

export interface AttemptOutcome {
  attempt: number;
  candidate: Candidate;
  ok: boolean;
  outcome: OutcomeClass;
  error?: SwitchyardError;
  /** From attempt start to the end of the answer (or the failure). */
  latencyMs: number;
  /** Streams: from attempt start to the first content token. */
  ttftMs?: number;
  usage?: Usage;
  /** Response headers, for pacing (`x-ratelimit-remaining-*`). */
  headers?: Record<string, string>;
  /** `post-commit` failures happened after the caller saw content. */
  phase: 'pre-commit' | 'post-commit';
  stream: boolean;
  initiator: string;
}

export type RetryDecision =
  /** Try `candidate` (default: the same one) again after `delayMs`. */
  | { action: 'retry'; delayMs: number; candidate?: Candidate; reason?: string }
  /** Move on to the next remaining candidate. */
  | { action: 'next'; reason?: string }
  /** Stop trying candidates: the degrade stage runs, then the request fails. */
  | { action: 'fail'; reason?: string };

export type DegradeResult =
  | { level: string; response: ChatResponse }
  /** Extra candidates (cheaper or local models); each runs once, without retries. */
  | { level: string; candidates: Candidate[] };

export interface StreamInterruption {
  error: SwitchyardError;
  candidate: Candidate;
  /** The answer the caller has received so far. */
  partial: ChatResponse;
}

export interface RequestOutcome {
  ok: boolean;
  model: string;
  stream: boolean;
  response?: ChatResponse;
  error?: SwitchyardError;
  attempts: AttemptOutcome[];
  latencyMs: number;
  degraded?: string;
}

export function createPipelineHooks() {
  return Object.freeze({
    /** Waterfall: refine the classification; a tap may settle the request with `ctx.respond()`. */
    classify: new AsyncSeriesWaterfallHook<[Classification, RequestContext]>(['classification', 'context'], 'classify'),
    /** Waterfall: filter and order candidates. */
    route: new AsyncSeriesWaterfallHook<[Candidate[], Classification, RequestContext]>(['candidates', 'classification', 'context'], 'route'),
    /** Bail per provider id: the first tap that answers runs the attempt. */
    call: new HookMap((providerId: string) => new AsyncSeriesBailHook<[Attempt, RequestContext], AttemptResult | undefined>(['attempt', 'context'], `call:${providerId}`)),
    /** Every attempt's outcome, awaited before the next decision. Taps must not throw (the core contains them). */
    recordAttempt: new AsyncSeriesHook<[AttemptOutcome, RequestContext]>(['outcome', 'context'], 'recordAttempt'),
    /** Bail: the first tap with a decision wins; none = the built-in default. */
    retry: new AsyncSeriesBailHook<[AttemptOutcome, RequestContext], RetryDecision | undefined>(['outcome', 'context'], 'retry'),
    /** Bail, only when every candidate failed: a final answer or extra candidates. */
    degrade: new AsyncSeriesBailHook<[SwitchyardError, RequestContext], DegradeResult | undefined>(['error', 'context'], 'degrade'),
    /** Bail, when a committed stream fails: a continuation of the answer elsewhere. */
    continueStream: new AsyncSeriesBailHook<[StreamInterruption, RequestContext], AsyncIterable<StreamPart> | undefined>(['interruption', 'context'], 'continueStream'),
    /** Parallel: the final outcome, for metrics, logs and usage reports. */
    recordRequest: new AsyncParallelHook<[RequestOutcome, RequestContext]>(['outcome', 'context'], 'recordRequest'),
  });
}

export type PipelineHooks = ReturnType<typeof createPipelineHooks>;
