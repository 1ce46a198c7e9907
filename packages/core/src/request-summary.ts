/**
 * How observers summarise a finished request the same way: its outcome class and how many
 * times it retried or moved to another candidate (logs, metrics and traces agree).
 */
import type { AttemptOutcome, RequestOutcome } from './hooks.js';

/** `cancelled`: the caller went away; `degraded`: the degrade stage answered. */
export type RequestOutcomeClass = 'success' | 'degraded' | 'error' | 'cancelled';

export function requestOutcomeClass(outcome: Pick<RequestOutcome, 'ok' | 'error' | 'degraded'>): RequestOutcomeClass {
  if (outcome.error?.kind === 'cancelled') return 'cancelled';
  if (!outcome.ok) return 'error';
  return outcome.degraded ? 'degraded' : 'success';
}

/**
 * Why no candidate answered a failed request, when that is the reason: `failed` (every one
 * tried failed) or `held-back` (none could be tried: each cooling after 429s, resting or
 * filtered out; the 429 ping-pong of two rate-limited vendors fails this way without a single
 * failed attempt). Undefined for any other failure: the caller's own mistake or limit (a
 * gateway key's rate limit has its own code), a budget, a cancel.
 */
export function unansweredCause(error: { kind: string; code?: string } | undefined): 'failed' | 'held-back' | undefined {
  if (!error) return undefined;
  if (error.kind === 'all-candidates-failed') return 'failed';
  if (error.kind === 'no-candidate' || (error.kind === 'rate-limit' && error.code === 'SWITCHYARD_ERR_RATE_LIMIT')) return 'held-back';
  return undefined;
}

/** Retries are attempts on the same candidate as the one before; failovers move to another. */
export function attemptMoves(attempts: readonly { candidate: { id: string } }[]): { retries: number; failovers: number } {
  let retries = 0;
  let failovers = 0;
  for (let i = 1; i < attempts.length; i++) {
    if (attempts[i].candidate.id === attempts[i - 1].candidate.id) retries++;
    else failovers++;
  }
  return { retries, failovers };
}
