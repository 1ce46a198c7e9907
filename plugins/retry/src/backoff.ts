/**
 * Retry delays (DESIGN.md, resilience semantics): the first retry is a quick jittered probe,
 * later ones back off exponentially with full or decorrelated jitter, and the cap keeps its
 * jitter so synchronised clients never settle into lock-step at the cap.
 */
import type { RandomSource } from '@switchyard/core';

export type JitterMode = 'full' | 'decorrelated';

export interface BackoffOptions {
  jitter: JitterMode;
  /** The first retry waits U(probeMinMs, probeMaxMs). */
  probeMinMs: number;
  probeMaxMs: number;
  /** Exponential base: the second retry's ceiling (full) or lower bound (decorrelated). */
  baseMs: number;
  /** Largest delay the exponential levels produce. */
  capMs: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({ jitter: 'full', probeMinMs: 100, probeMaxMs: 500, baseMs: 1000, capMs: 15_000 });

/** A random draw that is always a finite number in [0, 1), whatever the source returns. */
function unit(random: RandomSource): number {
  const r = random();
  return Number.isFinite(r) ? Math.min(Math.max(r, 0), 1 - Number.EPSILON) : 0;
}

/**
 * The delay before retry number `attempt` (1 = the first retry) on the same candidate.
 * `previousMs` is the delay used before the previous retry (decorrelated jitter walks from it).
 * Always finite, never negative, never above max(capMs, probeMaxMs).
 */
export function computeBackoff(attempt: number, opts: BackoffOptions, random: RandomSource, previousMs?: number): number {
  const probeSpan = Math.max(0, opts.probeMaxMs - opts.probeMinMs);
  if (!(attempt > 1)) return opts.probeMinMs + unit(random) * probeSpan;
  // A backoff level never undercuts the probe level: waiting less than the probe after a failed probe is pointless.
  const floor = Math.min(opts.probeMinMs, opts.capMs);
  if (opts.jitter === 'full') {
    const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(attempt - 2, 60));
    return floor + unit(random) * Math.max(0, ceiling - floor);
  }
  const previous = previousMs !== undefined && Number.isFinite(previousMs) && previousMs > 0 ? previousMs : opts.baseMs;
  const low = Math.max(floor, Math.min(opts.baseMs, opts.capMs));
  const next = low + unit(random) * Math.max(0, 3 * previous - low);
  if (next <= opts.capMs) return next;
  // At the cap: a fresh draw in the upper half of [0, cap] instead of the constant cap.
  return opts.capMs * (0.5 + 0.5 * unit(random));
}
