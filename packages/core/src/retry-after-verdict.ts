/**
 * The one decision behind every wait the pipeline makes (a vendor's Retry-After, a cooldown,
 * a backoff): wait here and try again, or cool down and move on. Pure: the caller brings the
 * numbers and does the waiting.
 */

export interface WaitLimits {
  /** The longest wait worth sitting out (omit: any). */
  maxWaitMs?: number;
  /** Time left before the request deadline (omit: no deadline). */
  timeLeftMs?: number;
  /** The least time an attempt needs after the wait. */
  minAttemptMs?: number;
}

export type WaitVerdict =
  | { action: 'wait'; delayMs: number }
  /** `too-long`: longer than worth waiting; `past-deadline`: the attempt after it would not fit the deadline. */
  | { action: 'move-on'; reason: 'too-long' | 'past-deadline' };

export function retryAfterVerdict(waitMs: number, limits: WaitLimits): WaitVerdict {
  if (limits.maxWaitMs !== undefined && waitMs > limits.maxWaitMs) return { action: 'move-on', reason: 'too-long' };
  if (limits.timeLeftMs !== undefined) {
    // An attempt that would start at (or after) the deadline gets no time at all.
    const left = limits.timeLeftMs - waitMs;
    if (left <= 0 || left < (limits.minAttemptMs ?? 0)) return { action: 'move-on', reason: 'past-deadline' };
  }
  return { action: 'wait', delayMs: waitMs };
}
