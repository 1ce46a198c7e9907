/**
 * A tiny per-pipeline service registry, so plugins cooperate without importing each other's
 * packages: the retry plugin provides its retry budget and the hedge plugin spends it; the
 * cache provides stale answers that the degrade plugin serves. Names are strings from
 * `SERVICE`; unknown names are allowed for third-party services.
 */
import type { Pipeline } from './pipeline.js';
import type { ChatRequest, ChatResponse } from './types.js';

const registries = new WeakMap<object, Map<string, unknown>>();

export const SERVICE = Object.freeze({
  /** `RetryBudgetService` from @switchyard/plugin-retry. */
  retryBudget: 'switchyard.retry-budget',
  /** `StaleAnswerService` from @switchyard/plugin-cache. */
  staleAnswers: 'switchyard.stale-answers',
  /** `MetricsService` from @switchyard/plugin-metrics: what the gateway's /metrics serves. */
  metrics: 'switchyard.metrics',
});

export interface MetricsService {
  /** The registry (a prom-client `Registry`), so a host can tell whether it already serves it. */
  readonly registry: object;
  readonly contentType: string;
  /** The Prometheus text exposition of every metric. */
  exposition(): Promise<string>;
}

export interface RetryBudgetService {
  /** Spends one retry (or hedge) from a deployment's budget; false when it is exhausted. */
  tryWithdraw(deploymentId: string): Promise<boolean>;
}

export interface StaleAnswerService {
  /** An expired answer for the same request, if one may still be served. */
  staleAnswer(request: ChatRequest): Promise<ChatResponse | undefined>;
}

export function provideService<T>(pipeline: Pipeline, name: string, service: T): void {
  let registry = registries.get(pipeline);
  if (!registry) registries.set(pipeline, (registry = new Map()));
  registry.set(name, service);
}

export function getService<T>(pipeline: Pipeline, name: string): T | undefined {
  return registries.get(pipeline)?.get(name) as T | undefined;
}
