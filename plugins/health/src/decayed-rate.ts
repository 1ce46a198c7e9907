/**
 * An exponentially weighted error rate on the injected clock: every sample's weight halves each
 * `halfLifeMs`, so `rate = Σ wᵢ·fᵢ / Σ wᵢ` with `wᵢ = 2^(−ageᵢ / halfLifeMs)`. Unlike a
 * per-sample EWMA, a burst of samples counts by its size and a sparse trickle is not
 * over-weighted. While the recent weight is below one sample, the missing weight counts as a
 * success: old news fades, so an idle deployment's rate decays toward 0 with the same half-life.
 */
export class DecayedRate {
  private failures = 0;
  private total = 0;
  private at = 0;

  constructor(private readonly halfLifeMs: number) {}

  /** `failure` in [0, 1]: 0 a success, 1 a failure, 0.5 a rate-limited answer. */
  add(now: number, failure: number): void {
    this.decay(now);
    this.failures += Math.min(1, Math.max(0, failure));
    this.total += 1;
  }

  rate(now: number): number {
    this.decay(now);
    return this.total === 0 ? 0 : this.failures / Math.max(1, this.total);
  }

  clear(): void {
    this.failures = 0;
    this.total = 0;
  }

  private decay(now: number): void {
    const elapsed = now - this.at;
    this.at = now;
    if (elapsed <= 0 || this.total === 0) return;
    const factor = 2 ** (-elapsed / this.halfLifeMs);
    this.failures *= factor;
    this.total *= factor;
  }
}
