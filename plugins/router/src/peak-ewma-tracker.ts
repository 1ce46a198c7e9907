/**
 * Per-deployment PeakEWMA estimates fed from every attempt outcome, plus the requests in flight
 * on each deployment (PeakEWMA scales the estimate by pending + 1). Failures are biased
 * (Linkerd): a deployment that fails fast must never look fast.
 */
import type { AttemptOutcome } from '@switchyard/core';
import { PeakEwma, type PeakEwmaOptions } from './peak-ewma.js';

export interface PeakEwmaTrackerOptions extends PeakEwmaOptions {
  failurePenaltyMs: number;
}

/** Retry-After longer than this says "not soon", not "this slow" (reference b.3). */
const MAX_RETRY_AFTER_BIAS_MS = 300_000;
/** A request whose outcome never arrives stops counting as in flight after this. */
const PENDING_TTL_MS = 10 * 60_000;

export class PeakEwmaTracker {
  private readonly estimates = new Map<string, PeakEwma>();
  /** deploymentId → requestId → since when. */
  private readonly inFlight = new Map<string, Map<string, number>>();

  constructor(private readonly options: PeakEwmaTrackerOptions) {}

  private ewma(deploymentId: string): PeakEwma {
    let estimate = this.estimates.get(deploymentId);
    if (!estimate) this.estimates.set(deploymentId, (estimate = new PeakEwma(this.options)));
    return estimate;
  }

  /** Counted from the moment the router picks it, so concurrent routing decisions see each other. */
  started(deploymentId: string, requestId: string, now: number): void {
    let requests = this.inFlight.get(deploymentId);
    if (!requests) this.inFlight.set(deploymentId, (requests = new Map()));
    if (!requests.has(requestId)) requests.set(requestId, now);
  }

  finished(deploymentId: string, requestId: string): void {
    this.inFlight.get(deploymentId)?.delete(requestId);
  }

  /** The request ended: nothing of it is in flight any more. */
  ended(requestId: string): void {
    for (const requests of this.inFlight.values()) requests.delete(requestId);
  }

  record(outcome: AttemptOutcome, requestId: string, now: number): void {
    const id = outcome.candidate.deploymentId;
    this.finished(id, requestId);
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
    const requests = this.inFlight.get(deploymentId);
    if (!requests) return 0;
    // Entries are kept in the order they started, so the lost ones are at the front: the sweep
    // stops at the first live one instead of walking every request in flight on each decision.
    for (const [key, since] of requests) {
      if (now - since <= PENDING_TTL_MS) break;
      requests.delete(key);
    }
    return requests.size;
  }

  load(deploymentId: string, now: number): number {
    return this.ewma(deploymentId).load(now, this.pending(deploymentId, now));
  }

  estimate(deploymentId: string, now: number): number {
    return this.ewma(deploymentId).estimate(now);
  }
}
