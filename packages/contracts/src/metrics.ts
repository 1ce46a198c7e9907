/** @switchyard/plugin-metrics' words: the exposition a host serves at /metrics. */
import { defineService } from '@switchyard/core';

export interface MetricsService {
  /** The registry (a prom-client `Registry`), so a host can tell whether it already serves it. */
  readonly registry: object;
  readonly contentType: string;
  /** The Prometheus text exposition of every metric. */
  exposition(): Promise<string>;
}

/** Provided by @switchyard/plugin-metrics: what the gateway's /metrics serves. */
export const METRICS = defineService<MetricsService>('switchyard.metrics', { providedBy: '@switchyard/plugin-metrics' });
