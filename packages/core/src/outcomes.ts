/**
 * What an attempt and a request came to: the payloads of `recordAttempt` / `recordRequest` and
 * of the `attempt:end` / `request:end` events. Types only, in a file of their own so the
 * contract and the event bus can both import them without importing each other.
 */
import type { OutcomeClass, SwitchyardError } from './errors.js';
import type { Candidate, ChatResponse, Usage } from './types.js';

export interface AttemptOutcome {
  attempt: number;
  candidate: Candidate;
  ok: boolean;
  outcome: OutcomeClass;
  error?: SwitchyardError;
  /** From attempt start to the end of the answer (or the failure). */
  latencyMs: number;
  /**
   * The pipeline clock's time when the outcome was taken (the core's attempts): a tap that
   * records the attempt by time uses it instead of reading the clock again. Absent in an outcome
   * built elsewhere (a test's, an older core's): read the clock then.
   */
  endedAt?: number;
  /** Streams: from attempt start to the first content token. */
  ttftMs?: number;
  usage?: Usage;
  /** Response headers, for pacing (`x-ratelimit-remaining-*`). */
  headers?: Record<string, string>;
  /** `post-commit` failures happened after the caller saw content. */
  phase: 'pre-commit' | 'post-commit';
  stream: boolean;
  initiator: string;
  /** The vendor's response headers arrived: it had the request (a later failure may still be billed). */
  headersReceived?: boolean;
  /**
   * The request body was fully written to the vendor's socket: the vendor has it and may bill
   * it, whatever happens next (a cancel, a timeout, a hedge that lost). False: it never left
   * (queued for a connection, refused before sending). Absent when the transport cannot tell.
   */
  requestSent?: boolean;
  /** Characters of output a stream delivered before it ended (text, reasoning, tool arguments). */
  outputChars?: number;
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
