/**
 * The health of one deployment: a sliding success-rate window, a latency average with a failure
 * penalty, and a healthy/unhealthy state with hysteresis and a slow-start ramp after recovery.
 */
import type { HealthOptions } from './options.js';
import { DecayedRate } from './decayed-rate.js';
import { SlidingWindow } from './sliding-window.js';

export type Sample =
  | { kind: 'success'; latencyMs?: number }
  | { kind: 'failure'; latencyMs?: number; weight?: number };

export interface HealthView {
  healthy: boolean;
  score: number;
  /** Samples in the window. */
  samples: number;
  /** Share of successes in the sliding window. */
  successRate: number;
  /** The exponentially weighted error rate (half-life `errorHalfLifeMs`), 0 before any sample. */
  errorRateEwma: number;
  /** Latency average (decayed while idle); undefined before the first sample. */
  latencyMs?: number;
  /** Set while the deployment is taking traffic back after a recovery. */
  slowStart?: { since: number; share: number };
}

export type HealthSettings = Pick<
  HealthOptions,
  'windowMs' | 'buckets' | 'errorHalfLifeMs' | 'errorEwmaWeight' | 'minSamples' | 'unhealthyBelow' | 'healthyAbove' | 'latencyTargetMs' | 'latencyWeight' | 'failurePenaltyMs' | 'latencyAlpha' | 'slowStartMs' | 'slowStartMinShare'
>;

export class DeploymentHealth {
  private readonly window: SlidingWindow;
  private readonly errors: DecayedRate;
  private latency: number | undefined;
  private latencyAt = 0;
  private healthy = true;
  private recoveredAt: number | undefined;

  constructor(private readonly settings: HealthSettings) {
    this.window = new SlidingWindow(settings.windowMs, settings.buckets);
    this.errors = new DecayedRate(settings.errorHalfLifeMs);
  }

  /** Records a sample; returns the new state when it flipped. */
  record(sample: Sample, now: number): boolean | undefined {
    const failure = sample.kind === 'success' ? 0 : (sample.weight ?? 1);
    this.window.add(now, failure);
    this.errors.add(now, failure);
    const observed = sample.kind === 'failure' && sample.latencyMs !== undefined ? Math.max(sample.latencyMs, this.settings.failurePenaltyMs) : sample.latencyMs;
    if (observed !== undefined && Number.isFinite(observed)) {
      const current = this.latencyNow(now);
      this.latency = current === undefined ? observed : current + this.settings.latencyAlpha * (observed - current);
      this.latencyAt = now;
    }
    return this.evaluate(now);
  }

  /**
   * Re-reads the score and applies hysteresis; returns the new state when it flipped. Time
   * alone can heal: once the failures have left the window, an idle deployment scores well again.
   */
  evaluate(now: number): boolean | undefined {
    const { samples, score } = this.measure(now);
    if (this.healthy && samples >= this.settings.minSamples && score < this.settings.unhealthyBelow) {
      this.healthy = false;
      this.recoveredAt = undefined;
      return false;
    }
    if (!this.healthy && score > this.settings.healthyAbove) {
      this.healthy = true;
      this.recoveredAt = this.settings.slowStartMs > 0 ? now : undefined;
      return true;
    }
    return undefined;
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  /** A trial request succeeded after an ejection: a fresh window, healthy, slow start from now. */
  restore(now: number, latencyMs: number | undefined): void {
    this.window.clear();
    this.errors.clear();
    this.latency = latencyMs;
    this.latencyAt = now;
    this.healthy = true;
    this.recoveredAt = this.settings.slowStartMs > 0 ? now : undefined;
  }

  /** Probability in [minShare, 1] that a recovered deployment is admitted first; 1 outside slow start. */
  admission(now: number): number {
    if (!this.healthy || this.recoveredAt === undefined) return 1;
    const elapsed = now - this.recoveredAt;
    if (elapsed >= this.settings.slowStartMs) {
      this.recoveredAt = undefined;
      return 1;
    }
    const min = this.settings.slowStartMinShare;
    return min + (1 - min) * (Math.max(0, elapsed) / this.settings.slowStartMs);
  }

  view(now: number): HealthView {
    const { samples, score, successRate, errorRateEwma } = this.measure(now);
    const share = this.admission(now);
    return {
      healthy: this.healthy,
      score,
      samples,
      successRate,
      errorRateEwma,
      latencyMs: this.latencyNow(now),
      ...(this.recoveredAt !== undefined ? { slowStart: { since: this.recoveredAt, share } } : {}),
    };
  }

  score(now: number): number {
    return this.measure(now).score;
  }

  /** `score = (1 − errorRate) × (1 − latencyWeight × slowness)`, the error rate blending the window and the EWMA. */
  private measure(now: number): { samples: number; score: number; successRate: number; errorRateEwma: number } {
    const { total, failures } = this.window.counts(now);
    const successRate = total > 0 ? 1 - failures / total : 1;
    const errorRateEwma = this.errors.rate(now);
    const { latencyTargetMs: target, latencyWeight, errorEwmaWeight } = this.settings;
    const errorRate = (1 - errorEwmaWeight) * (1 - successRate) + errorEwmaWeight * errorRateEwma;
    const latency = this.latencyNow(now);
    const slowness = latency === undefined || latency <= target ? 0 : 1 - target / latency;
    return { samples: total, successRate, errorRateEwma, score: (1 - errorRate) * (1 - latencyWeight * slowness) };
  }

  /** The latency average fades toward zero while no samples arrive (old news is no news). */
  private latencyNow(now: number): number | undefined {
    if (this.latency === undefined) return undefined;
    return this.latency * Math.exp(-Math.max(0, now - this.latencyAt) / this.settings.windowMs);
  }
}
