/** The one object every stage works on for a request. */
import type { Clock, RandomSource } from './clock.js';
import type { SwitchyardError } from './errors.js';
import type { AttemptOutcome, AttemptResult, Classification } from './hooks.js';
import type { Pipeline } from './pipeline.js';
import type { Candidate, ChatRequest, ChatResponse, EmbeddingRequest } from './types.js';

/**
 * Per-plugin state slots. Plugins add their own fields with module augmentation:
 * `declare module '@switchyard/core' { interface RequestState { retry?: RetryState } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface RequestState {
  [plugin: string]: unknown;
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
  classification: Classification;
  /** Every candidate the route stage produced, in order. */
  candidates: Candidate[];
  /** Candidates not tried yet; `next` decisions take the first. Policies may reorder or filter it. */
  remaining: Candidate[];
  /** The candidate being tried now. */
  current?: Candidate;
  readonly attempts: AttemptOutcome[];
  readonly state: RequestState;
  /** Settle the request early (a cache hit); works in classify and route. */
  respond(response: ChatResponse): void;
  /** Start an attempt on a candidate (hedging); it goes through `call` and `recordAttempt`. */
  runAttempt(candidate: Candidate, options?: RunAttemptOptions): Promise<AttemptResult>;
  /** Milliseconds left before the request deadline. */
  timeLeft(): number;
  /** The errors of the failed attempts so far. */
  errors(): SwitchyardError[];
}
