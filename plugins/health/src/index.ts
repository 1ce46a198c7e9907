// Its events and codes are declared in the shared contracts: importing this package types them.
import '@switchyard/contracts';
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
