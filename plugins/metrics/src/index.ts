// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { MetricsService } from '@switchyard/contracts';
export { metrics, metrics as default, getMetricsRegistry, observePipeline, statusClass, PLUGIN_NAME } from './plugin.js';
export { Tally, TallyHistogram } from './tally.js';
export { metricSet, DEFAULT_BACKOFF_BUCKETS, DEFAULT_DURATION_BUCKETS, DEFAULT_TTFT_BUCKETS, type Buckets, type MetricSet } from './metric-set.js';
export { metricsOptionsSchema, type MetricsOptions, type MetricsOptionsInput } from './options.js';
