/** @switchyard/plugin-health's words: its report service, its events, the demoted-candidates slot. */
import { defineHooks, defineRequestSlot, defineService } from '@switchyard/core';
import { SyncHook } from 'tapable';

export const HEALTH_PLUGIN = '@switchyard/plugin-health';

/** What @switchyard/plugin-health knows of one deployment now (its `getHealth(pipeline).snapshot()` entries). */
export interface HealthReportEntry {
  healthy: boolean;
  score: number;
  /** Share of successes in the sliding window. */
  successRate: number;
  /** The exponentially weighted error rate (its half-life is the plugin's `errorHalfLifeMs`). */
  errorRateEwma: number;
  /** Error patterns going on now ("the same error again and again", "always timing out"). */
  patterns?: readonly { pattern: string; kind: string; code: string; status?: number; since: number }[];
}

/** The health plugin's read side, for hosts and observers (the gateway's /status, the metrics plugin). */
export interface HealthReportService {
  /** Per deployment id (`endpoint/model`). */
  report(): Record<string, HealthReportEntry>;
}

/** A deployment's health flipped; `remote`: on another instance sharing the store (relayed by pub/sub). */
export interface HealthChange {
  deployment: string;
  healthy: boolean;
  score: number;
  remote?: boolean;
}

/** Called by the health plugin when a deployment's health flips, here or on another instance; tap to act on it. */
export const HEALTH_HOOKS = defineHooks(HEALTH_PLUGIN, () => ({
  change: new SyncHook<[HealthChange]>(['change']),
}));

/** Provided by @switchyard/plugin-health: per-deployment health for /status and metrics. */
export const HEALTH_REPORT = defineService<HealthReportService>('switchyard.health-report', { providedBy: HEALTH_PLUGIN });

/**
 * Candidate ids a route filter keeps only as a last resort (health: unhealthy or slow-starting).
 * The router orders them after all others, in the order the filter left them.
 */
export const DEMOTED = defineRequestSlot<Set<string>>('switchyard:demoted');

/** How a quality run differs from the deployment's baseline. */
export interface QualityDrift {
  signal: 'model-changed' | 'answer-drift' | 'latency-shift' | 'length-shift';
  baseline: string | number;
  observed: string | number;
  message: string;
}

export interface ErrorPattern {
  deployment: string;
  /** `same-error`: one error (kind, code, status) again and again; `timeouts`: attempts keep timing out. */
  pattern: 'same-error' | 'timeouts';
  /** True when it starts, false when it ends. */
  active: boolean;
  kind: string;
  code: string;
  status?: number;
  /** Occurrences that made (or last kept) it a pattern. */
  count: number;
  /** Clock ms when it started. */
  since: number;
  message: string;
}

/** A quality probe's verdict on a deployment changed: answers fail their checks, or drift from the stored baseline. */
export interface QualityChange { deployment: string; ok: boolean; failed: string[]; drift: QualityDrift[] }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    /** `remote`: the transition happened on another instance sharing the store (relayed by pub/sub). */
    'health:change': [HealthChange];
    /** An error pattern started or ended on a deployment: the same error again and again, or (nearly) every attempt timing out. */
    'health:pattern': [ErrorPattern];
    /** A quality probe's verdict on a deployment changed: answers fail their checks, or drift from the stored baseline. */
    'quality:change': [QualityChange];
  }
}
