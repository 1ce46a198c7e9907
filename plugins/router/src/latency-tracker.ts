/**
 * Per-deployment PeakEWMA estimates fed from every attempt outcome, plus the attempts in flight
 * (PeakEWMA scales the estimate by pending + 1). Failures are biased (Linkerd): a deployment that
 * fails fast must never look fast.
 */
import type { AttemptOutcome } from '@switchyard/core';
import { PeakEwma, type PeakEwmaOptions } from './peak-ewma.js';

export interface LatencyTrackerOptions extends PeakEwmaOptions {
  failurePenaltyMs: number;
}

/** Retry-After longer than this says "not soon", not "this slow" (reference b.3). */
const MAX_RETRY_AFTER_BIAS_MS = 300_000;
/** An attempt whose outcome never arrives (an abandoned hedge) stops counting as in flight. */
const PENDING_TTL_MS = 10 * 60_000;

export class LatencyTracker {
  private readonly estimates = new Map<string, PeakEwma>();
  private readonly inFlight = new Map<string, Map<string, number>>();

  constructor(private readonly options: LatencyTrackerOptions) {}

  private ewma(deploymentId: string): PeakEwma {
    let estimate = this.estimates.get(deploymentId);
    if (!estimate) this.estimates.set(deploymentId, (estimate = new PeakEwma(this.options)));
    return estimate;
  }

  started(deploymentId: string, attemptKey: string, now: number): void {
    let attempts = this.inFlight.get(deploymentId);
    if (!attempts) this.inFlight.set(deploymentId, (attempts = new Map()));
    attempts.set(attemptKey, now);
  }

  record(outcome: AttemptOutcome, attemptKey: string, now: number): void {
    const id = outcome.candidate.deploymentId;
    this.inFlight.get(id)?.delete(attemptKey);
    if (outcome.outcome === 'ignored' || outcome.outcome === 'request-failure') return;
    const measured = outcome.stream && outcome.ttftMs !== undefined ? outcome.ttftMs : outcome.latencyMs;
    if (outcome.ok) {
      this.ewma(id).observe(measured, now);
      return;
    }
    const pushback = Math.min(outcome.error?.retryAfterMs ?? 0, MAX_RETRY_AFTER_BIAS_MS);
    this.ewma(id).observe(Math.max(measured, this.options.failurePenaltyMs, pushback), now);
  }

  pending(deploymentId: string, now: number): number {
    const attempts = this.inFlight.get(deploymentId);
    if (!attempts) return 0;
    for (const [key, startedAt] of attempts) if (now - startedAt > PENDING_TTL_MS) attempts.delete(key);
    return attempts.size;
  }

  load(deploymentId: string, now: number): number {
    return this.ewma(deploymentId).load(now, this.pending(deploymentId, now));
  }

  estimate(deploymentId: string, now: number): number {
    return this.ewma(deploymentId).estimate(now);
  }
}
