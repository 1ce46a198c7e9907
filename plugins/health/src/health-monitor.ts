/**
 * The health of every deployment of a pipeline, fed by live traffic and probes, read by the
 * route filter and by anyone holding the pipeline (`getHealth(pipeline)`).
 */
import { BREAKER_HOOKS, HEALTH_HOOKS, HEALTH_PLUGIN, type ErrorPattern } from '@switchyard/contracts';
import { defineService, provideService, requireService, storeLocal, type Pipeline } from '@switchyard/core';
import { DeploymentHealth, type HealthSettings, type HealthView, type Sample } from './deployment-health.js';
import type { ProbeDepth } from './options.js';
import type { ProbeResult } from './probes.js';
import type { QualityVerdict } from './quality-watch.js';
import { Recovery, type RecoverySettings } from './recovery.js';
import type { SharedVerdicts } from './shared-health.js';

export interface HealthSnapshotEntry extends HealthView {
  /** Set while the deployment is unhealthy: its ejections in a row and when it may take a trial request. */
  ejection?: { ejections: number; readmitAt: number };
  probes: Partial<Record<ProbeDepth, { at: number; ok: boolean; latencyMs: number; error?: string }>>;
  /** The quality probe's last verdict: failed checks and drift from the baseline. */
  quality?: QualityVerdict;
  /** Error patterns going on now (`health:pattern`). */
  patterns: ErrorPattern[];
}

export interface HealthMonitor {
  /** Score in [0, 1]; 1 for a deployment never seen. */
  score(deploymentId: string): number;
  isHealthy(deploymentId: string): boolean;
  snapshot(): Record<string, HealthSnapshotEntry>;
  /** Runs the configured active probes once, now (the CLI's `check`); resolves once their results are judged. */
  runProbes(depths?: ProbeDepth[]): Promise<ProbeResult[]>;
  /** Forgets the quality baseline (of one deployment, or all) after an intended model change: the next passing run sets a new one. */
  resetQualityBaseline(deploymentId?: string): Promise<void>;
  /** Stops the active probes (call it when closing the pipeline). */
  stop(): void;
}

const HEALTH_MONITOR = defineService<HealthMonitor>('switchyard.health-monitor', { providedBy: '@switchyard/plugin-health' });

/** The health monitor of `pipeline`; throws a coded error when the health plugin is not applied. */
export function getHealth(pipeline: Pipeline): HealthMonitor {
  return requireService(pipeline, HEALTH_MONITOR);
}

export function registerHealth(pipeline: Pipeline, monitor: HealthMonitor): void {
  provideService(pipeline, HEALTH_MONITOR, monitor);
}

export class HealthBook {
  private readonly deployments: Map<string, DeploymentHealth>;
  private readonly probeResults: Map<string, HealthSnapshotEntry['probes']>;
  private readonly recoveries: Map<string, Recovery>;
  /** The quality probe's verdicts, for the snapshot. */
  qualityOf: (deploymentId: string) => QualityVerdict | undefined = () => undefined;
  /** The error patterns going on, for the snapshot. */
  patternsOf: (deploymentId: string) => ErrorPattern[] = () => [];

  constructor(
    private readonly pipeline: Pipeline,
    private readonly settings: HealthSettings & RecoverySettings,
    /** Verdicts of other instances on the same store (Redis); none without pub/sub. */
    readonly shared?: SharedVerdicts,
    /** Per deployment: its latency with full marks (`endpoints` / `deployments` overrides). */
    private readonly latencyTargetMs?: (deploymentId: string) => number,
  ) {
    // Held with the store, not the pipeline: a gateway reload keeps every deployment's health.
    this.deployments = storeLocal(pipeline.store, 'switchyard.health.deployments', () => new Map<string, DeploymentHealth>());
    this.probeResults = storeLocal(pipeline.store, 'switchyard.health.probes', () => new Map<string, HealthSnapshotEntry['probes']>());
    this.recoveries = storeLocal(pipeline.store, 'switchyard.health.recoveries', () => new Map<string, Recovery>());
    BREAKER_HOOKS.of(pipeline).open.tap(HEALTH_PLUGIN, ({ deployment, until }) => this.recovery(deployment).breakerOpenUntil(until));
  }

  recovery(deploymentId: string): Recovery {
    let recovery = this.recoveries.get(deploymentId);
    if (!recovery) this.recoveries.set(deploymentId, (recovery = new Recovery(this.settings)));
    return recovery;
  }

  /** An unhealthy deployment whose ejection is over takes this request as its trial. */
  takeTrial(deploymentId: string): boolean {
    const now = this.pipeline.clock.now();
    const recovery = this.recovery(deploymentId);
    if (!recovery.mayTrial(now)) return false;
    recovery.startTrial(now);
    return true;
  }

  get(deploymentId: string): DeploymentHealth {
    let health = this.deployments.get(deploymentId);
    if (!health) {
      const latencyTargetMs = this.latencyTargetMs?.(deploymentId) ?? this.settings.latencyTargetMs;
      health = new DeploymentHealth(latencyTargetMs === this.settings.latencyTargetMs ? this.settings : { ...this.settings, latencyTargetMs });
      this.deployments.set(deploymentId, health);
    }
    return health;
  }

  /** `now`: when the sample was taken, on the pipeline's clock. */
  record(deploymentId: string, sample: Sample, now = this.pipeline.clock.now()): void {
    const health = this.get(deploymentId);
    const recovery = this.recovery(deploymentId);
    if (!health.isHealthy() && recovery.isTrialOutcome(now)) {
      if (sample.kind === 'success') {
        health.restore(now, sample.latencyMs);
        recovery.restored(now);
        return this.announce(deploymentId, health, true);
      }
      health.record(sample, now);
      // Throttled is not down: the trial ends without a verdict.
      if ((sample.weight ?? 1) >= 1) recovery.eject(now, this.pipeline.random);
      else recovery.endTrial();
      return;
    }
    const flipped = health.record(sample, now);
    if (flipped === false) recovery.eject(now, this.pipeline.random);
    this.announce(deploymentId, health, flipped);
  }

  /** Current state after applying hysteresis to the score as it is at `now` (the pipeline clock's time). */
  assess(deploymentId: string, now = this.pipeline.clock.now()): DeploymentHealth {
    const health = this.get(deploymentId);
    const flipped = health.evaluate(now);
    if (flipped === false) this.recovery(deploymentId).eject(now, this.pipeline.random);
    this.announce(deploymentId, health, flipped);
    return health;
  }

  recordProbe(result: ProbeResult): void {
    const probes = this.probeResults.get(result.deployment) ?? {};
    probes[result.depth] = { at: this.pipeline.clock.now(), ok: result.ok, latencyMs: result.latencyMs, ...(result.error ? { error: result.error.message } : {}) };
    this.probeResults.set(result.deployment, probes);
    if (result.failure === 'probe') {
      this.pipeline.events.emit('plugin-error', { plugin: '@switchyard/plugin-health', stage: `probe:${result.depth}`, error: result.error });
      return;
    }
    // Reachability is not a completion: its latency says nothing about answer speed.
    const latencyMs = result.depth === 'reachability' ? undefined : result.latencyMs;
    this.record(result.deployment, result.ok ? { kind: 'success', latencyMs } : { kind: 'failure', latencyMs });
  }

  snapshot(): Record<string, HealthSnapshotEntry> {
    const now = this.pipeline.clock.now();
    const out: Record<string, HealthSnapshotEntry> = {};
    for (const [id, health] of this.deployments) {
      const ejection = health.isHealthy() ? undefined : this.recoveries.get(id)?.view();
      const quality = this.qualityOf(id);
      out[id] = { ...health.view(now), ...(ejection ? { ejection } : {}), probes: { ...this.probeResults.get(id) }, ...(quality ? { quality } : {}), patterns: this.patternsOf(id) };
    }
    return out;
  }

  score(deploymentId: string): number {
    const now = this.pipeline.clock.now();
    const local = this.deployments.get(deploymentId)?.score(now) ?? 1;
    return Math.min(local, this.shared?.unhealthyScore(deploymentId, now) ?? 1);
  }

  isHealthy(deploymentId: string): boolean {
    if (this.shared?.unhealthyScore(deploymentId, this.pipeline.clock.now()) !== undefined) return false;
    const health = this.deployments.get(deploymentId);
    return health ? this.assess(deploymentId).isHealthy() : true;
  }

  private announce(deploymentId: string, health: DeploymentHealth, flipped: boolean | undefined): void {
    if (flipped === undefined) return;
    const change = { deployment: deploymentId, healthy: flipped, score: health.score(this.pipeline.clock.now()) };
    HEALTH_HOOKS.of(this.pipeline).change.call(change);
    this.pipeline.events.emit('health:change', change);
  }
}
