/**
 * PeakEWMA latency estimate (Finagle → tower → Linkerd, reference b.3): a slower sample than the
 * estimate replaces it at once (peak-sensitive); a faster one blends in with a weight that grows
 * with the time since the last sample. The estimate decays toward zero while a deployment is
 * idle, so one that was slow long ago is tried again.
 */
export interface PeakEwmaOptions {
  /** Time constant of the decay (ms). */
  decayMs: number;
  /** Estimate assumed for a deployment without any sample yet. */
  defaultRttMs: number;
}

/** Load of a deployment without history that already has a request in flight: probe it at most once. */
const UNPROBED_PENALTY = 1e9;

export class PeakEwma {
  private cost = 0;
  private updatedAt = 0;
  private sampled = false;

  constructor(private readonly options: PeakEwmaOptions) {}

  get hasHistory(): boolean {
    return this.sampled;
  }

  observe(rttMs: number, now: number): void {
    const rtt = Math.max(0, Number.isFinite(rttMs) ? rttMs : 0);
    if (!this.sampled) {
      this.cost = rtt;
      this.sampled = true;
    } else if (rtt > this.cost) {
      this.cost = rtt;
    } else {
      const w = this.weight(now);
      this.cost = w * this.cost + (1 - w) * rtt;
    }
    this.updatedAt = now;
  }

  /** The estimate at `now`, decayed for the time since the last sample. */
  estimate(now: number): number {
    if (!this.sampled) return this.options.defaultRttMs;
    return this.cost * this.weight(now);
  }

  /** What P2C compares: the estimate scaled by the requests in flight. */
  load(now: number, pending = 0): number {
    if (!this.sampled && pending > 0) return UNPROBED_PENALTY + pending;
    return this.estimate(now) * (pending + 1);
  }

  private weight(now: number): number {
    const elapsed = Math.max(0, now - this.updatedAt);
    return Math.exp(-elapsed / this.options.decayMs);
  }
}
