/**
 * Retry budget per deployment (Finagle / Linkerd style): over a sliding window, retries may
 * add at most `ratio` of the requests plus a small floor, so a total outage does not multiply
 * upstream load. Counters live in the StateStore as one atomic counter per time bucket, so a
 * shared store (Redis) gives every gateway instance the same budget.
 */
import type { Clock, StateStore } from '@switchyard/core';

export interface RetryBudgetOptions {
  /** Retries allowed per request in the window (0.2 = 20 % extra load). */
  ratio: number;
  /** Retries always allowed per window, so a quiet deployment can still retry. */
  minRetries: number;
  windowMs: number;
  buckets: number;
}

export const DEFAULT_RETRY_BUDGET: Readonly<RetryBudgetOptions> = Object.freeze({ ratio: 0.2, minRetries: 3, windowMs: 10_000, buckets: 10 });

export interface RetryBudgetSnapshot {
  requests: number;
  retries: number;
  /** Retries the window allows in total right now. */
  allowed: number;
}

const PREFIX = 'switchyard:retry-budget:';

export class RetryBudget {
  private readonly bucketMs: number;
  /**
   * Requests counted in-process for the current bucket, per deployment, and added to the
   * store's counter in one write when the bucket ends (or before a withdrawal reads it): the
   * healthy path does no store write per request. Until then other instances on a shared store
   * see fewer requests, so they allow fewer retries, never more.
   */
  private readonly unwritten = new Map<string, { bucket: number; count: number }>();

  constructor(
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly options: RetryBudgetOptions = DEFAULT_RETRY_BUDGET,
    /** Where a failed background write of a bucket's count is reported. */
    private readonly onWriteError: (error: unknown) => void = () => undefined,
  ) {
    this.bucketMs = Math.max(1, options.windowMs / options.buckets);
  }

  /** Counts a first attempt (not a retry) on the deployment; synchronous, a bucket's count is written once. */
  recordRequest(deploymentId: string): void {
    const bucket = this.bucketIndex(this.clock.now());
    const pending = this.unwritten.get(deploymentId);
    if (pending && pending.bucket === bucket) {
      pending.count++;
      return;
    }
    this.unwritten.set(deploymentId, { bucket, count: 1 });
    if (pending) this.write(deploymentId, pending).catch(this.onWriteError);
  }

  /** Writes the requests counted in-process for the deployment (before its budget is read). */
  private async flush(deploymentId: string): Promise<void> {
    const pending = this.unwritten.get(deploymentId);
    if (!pending) return;
    this.unwritten.delete(deploymentId);
    await this.write(deploymentId, pending);
  }

  private async write(deploymentId: string, pending: { bucket: number; count: number }): Promise<void> {
    await this.store.increment(this.key(deploymentId, 'req', pending.bucket), pending.count, this.options.windowMs + this.bucketMs);
  }

  /** Spends one retry if the window allows it; false means: do not retry, move on. */
  async tryWithdraw(deploymentId: string): Promise<boolean> {
    await this.flush(deploymentId);
    // Count first, check after, undo if over: concurrent withdrawals cannot overshoot together.
    await this.bump(deploymentId, 'retry', 1);
    const { retries, allowed } = await this.snapshot(deploymentId);
    if (retries <= allowed) return true;
    await this.bump(deploymentId, 'retry', -1);
    return false;
  }

  async snapshot(deploymentId: string): Promise<RetryBudgetSnapshot> {
    await this.flush(deploymentId);
    const [requests, retries] = await Promise.all([this.sum(deploymentId, 'req'), this.sum(deploymentId, 'retry')]);
    return { requests, retries, allowed: Math.floor(this.options.minRetries + this.options.ratio * requests) };
  }

  private bucketIndex(now: number): number {
    return Math.floor(now / this.bucketMs);
  }

  private key(deploymentId: string, counter: 'req' | 'retry', bucket: number): string {
    return `${PREFIX}${deploymentId}:${counter}:${bucket}`;
  }

  private async bump(deploymentId: string, counter: 'req' | 'retry', by: number): Promise<void> {
    // The bucket outlives the window by one bucket, then the store forgets it.
    await this.store.increment(this.key(deploymentId, counter, this.bucketIndex(this.clock.now())), by, this.options.windowMs + this.bucketMs);
  }

  /** Sum of the buckets that overlap the window ending now. */
  private async sum(deploymentId: string, counter: 'req' | 'retry'): Promise<number> {
    const current = this.bucketIndex(this.clock.now());
    const reads: Promise<number | undefined>[] = [];
    for (let i = 0; i < this.options.buckets; i++) reads.push(this.store.get<number>(this.key(deploymentId, counter, current - i)));
    const values = await Promise.all(reads);
    return values.reduce<number>((total, v) => total + (typeof v === 'number' && Number.isFinite(v) ? v : 0), 0);
  }
}
