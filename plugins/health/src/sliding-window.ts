/**
 * A time-bucketed sliding window of weighted successes and failures. Buckets older than the
 * window are dropped on every read and write, so an idle gap of any length leaves no stale counts
 * (the cockatiel SamplingBreaker bug, reference rule 6).
 */
interface Bucket {
  start: number;
  total: number;
  failures: number;
}

export interface WindowCounts {
  /** Samples in the window (a weighted failure counts as one sample). */
  total: number;
  /** Weighted failures. */
  failures: number;
}

export class SlidingWindow {
  private buckets: Bucket[] = [];
  private readonly bucketMs: number;

  constructor(
    private readonly windowMs: number,
    bucketCount: number,
  ) {
    this.bucketMs = Math.max(1, Math.floor(windowMs / Math.max(1, bucketCount)));
  }

  /** `failure` is a weight in [0, 1]: 0 a success, 1 a failure, 0.5 a rate-limited answer. */
  add(now: number, failure: number): void {
    this.evict(now);
    const start = now - (now % this.bucketMs);
    let bucket = this.buckets[this.buckets.length - 1];
    if (!bucket || bucket.start !== start) this.buckets.push((bucket = { start, total: 0, failures: 0 }));
    bucket.total += 1;
    bucket.failures += Math.min(1, Math.max(0, failure));
  }

  clear(): void {
    this.buckets = [];
  }

  counts(now: number): WindowCounts {
    this.evict(now);
    let total = 0;
    let failures = 0;
    for (const b of this.buckets) {
      total += b.total;
      failures += b.failures;
    }
    return { total, failures };
  }

  private evict(now: number): void {
    // A bucket counts while any part of it lies inside (now - windowMs, now].
    const oldest = now - this.windowMs;
    let drop = 0;
    while (drop < this.buckets.length && this.buckets[drop].start + this.bucketMs <= oldest) drop++;
    if (drop > 0) this.buckets.splice(0, drop);
  }
}
