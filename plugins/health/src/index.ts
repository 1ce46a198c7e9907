// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export { HEALTH_HOOKS, type ErrorPattern, type HealthChange, type HealthReportEntry, type HealthReportService, type QualityChange, type QualityDrift } from '@switchyard/contracts';
import { health } from './health.js';

export { health, PLUGIN_NAME } from './health.js';
export { getHealth, type HealthMonitor, type HealthSnapshotEntry } from './health-monitor.js';
export { healthOptionsSchema, PROBE_DEPTHS, type AnswerCheck, type DepthSettings, type HealthOptions, type HealthOptionsInput, type ProbeDepth, type QualityCase } from './options.js';
export { probePlan, uniformPlan, type ProbePlan } from './probe-plan.js';
export { checkAnswer } from './answer-checks.js';
export { driftFrom, similarity, QualityWatch, type QualityVerdict } from './quality-watch.js';
export { DeploymentHealth, type HealthView, type Sample } from './deployment-health.js';
export { Recovery, type RecoverySettings } from './recovery.js';
export { SlidingWindow } from './sliding-window.js';
export { answerMatches, Prober, type ProbeResult, type QualityCaseResult, type QualityRun } from './probes.js';
export default health;
