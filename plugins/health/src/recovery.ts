/**
 * The way back for an unhealthy deployment, Envoy outlier-detection style: an ejected
 * deployment is re-admitted for one live trial request after an ejection time that grows
 * linearly with repeated ejections (`base × k`, capped, with jitter). A trial success restores
 * it (slow start follows); a trial failure ejects it again, for longer. The ejection count
 * decays once the deployment has stayed healthy for `maxEjectionMs`.
 *
 * The breaker and health never fight: a re-admission waits for the deployment's breaker open
 * period too (`breaker:open` carries its end), so the trial and the breaker's half-open probe
 * are the same request.
 */
import type { RandomSource } from '@switchyard/core';

export interface RecoverySettings {
  baseEjectionMs: number;
  maxEjectionMs: number;
  ejectionJitter: number;
  trialLeaseMs: number;
}

export class Recovery {
  private ejections = 0;
  private ejectedUntil = 0;
  private breakerUntil = 0;
  private trialUntil = 0;
  private restoredAt: number | undefined;

  constructor(private readonly settings: RecoverySettings) {}

  /** The deployment just became unhealthy, or its trial failed. */
  eject(now: number, random: RandomSource): void {
    if (this.restoredAt !== undefined && now - this.restoredAt >= this.settings.maxEjectionMs) this.ejections = 0;
    this.restoredAt = undefined;
    this.ejections++;
    const period = Math.min(this.settings.maxEjectionMs, this.settings.baseEjectionMs * this.ejections);
    const r = random();
    this.ejectedUntil = now + period * (1 + this.settings.ejectionJitter * (Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0));
    this.trialUntil = 0;
  }

  /** The breaker of this deployment is open until `until`: no trial before then. */
  breakerOpenUntil(until: number): void {
    this.breakerUntil = Math.max(this.breakerUntil, until);
  }

  /** When the ejection (and the breaker's open period) ends. */
  readmitAt(): number {
    return Math.max(this.ejectedUntil, this.breakerUntil);
  }

  /** True when an unhealthy deployment may take a trial request now (one at a time). */
  mayTrial(now: number): boolean {
    return now >= this.readmitAt() && now >= this.trialUntil;
  }

  startTrial(now: number): void {
    this.trialUntil = now + this.settings.trialLeaseMs;
  }

  /**
   * The answer of the trial in flight (the breaker may have re-opened on it a moment ago), or
   * any answer after the ejection ended.
   */
  isTrialOutcome(now: number): boolean {
    return this.trialUntil > 0 || now >= this.readmitAt();
  }

  endTrial(): void {
    this.trialUntil = 0;
  }

  restored(now: number): void {
    this.restoredAt = now;
    this.trialUntil = 0;
  }

  view(): { ejections: number; readmitAt: number } {
    return { ejections: this.ejections, readmitAt: this.readmitAt() };
  }
}
