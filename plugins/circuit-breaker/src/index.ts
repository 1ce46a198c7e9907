// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export { BREAKER_HOOKS, type BreakerOpened, type BreakerTransition } from '@switchyard/contracts';
export { circuitBreaker, circuitBreaker as default, getBreaker, PLUGIN_NAME, type BreakerControl, type BreakerRequestState } from './plugin.js';
export { BreakerStore, type BreakerState } from './breaker-store.js';
export {
  closedRecord,
  DEFAULT_BREAKER,
  forceClose,
  forceOpen,
  liveBuckets,
  openDurationMs,
  phaseAt,
  recordFailure,
  recordSuccess,
  startProbe,
  windowStats,
  type BreakerOptions,
  type BreakerPhase,
  type BreakerRecord,
  type Step,
  type Transition,
  type WindowBucket,
} from './state-machine.js';
export { breakerOptionsSchema, type BreakerPluginOptions, type BreakerPluginOptionsInput } from './options.js';
