import { health } from './health.js';

export { health, PLUGIN_NAME } from './health.js';
export { getHealth, type HealthMonitor, type HealthSnapshotEntry } from './health-monitor.js';
export { healthOptionsSchema, PROBE_DEPTHS, type HealthOptions, type HealthOptionsInput, type ProbeDepth } from './options.js';
export { DeploymentHealth, type HealthView, type Sample } from './deployment-health.js';
export { Recovery, type RecoverySettings } from './recovery.js';
export { SlidingWindow } from './sliding-window.js';
export { answerMatches, Prober, type ProbeResult } from './probes.js';
export default health;
