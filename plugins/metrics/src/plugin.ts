/**
 * The metrics plugin: listens on the pipeline's event bus (never on a hook: it cannot change a
 * request) and keeps prom-client histograms, counters and gauges. It provides the registry as
 * `SERVICE.metrics`, which the gateway's /metrics serves.
 */
import { SERVICE, type MetricsService } from '@switchyard/contracts';
import { definePlugin, getService, listenAll, provideService, type CallerIdentity, type CandidateRef, type Pipeline, type Price } from '@switchyard/core';
import { attemptMoves, requestOutcomeClass, tokenCounts, unansweredCause, usageCostUsd } from '@switchyard/core/internal';
import { register as globalRegistry, type Registry } from 'prom-client';
import { metricSet, type MetricSet } from './metric-set.js';
import { metricsOptionsSchema, type MetricsOptions, type MetricsOptionsInput } from './options.js';

export const PLUGIN_NAME = '@switchyard/plugin-metrics';

/** Levels above this share one label value: the label set stays small whatever maxAttempts is. */
const MAX_LEVEL = 5;
const BREAKER = { closed: 0, 'half-open': 1, open: 2 } as const;

export function statusClass(status: number | undefined, ok: boolean): string {
  if (ok) return '2xx';
  if (status === undefined || status < 100 || status > 599) return 'none';
  return `${Math.floor(status / 100)}xx`;
}

const levelLabel = (level: number) => (level >= MAX_LEVEL ? `${MAX_LEVEL}+` : String(Math.max(1, level)));

/** Label values for a caller: its key id and team, or `(other)` once `max` keys have series (bounded cardinality). */
export function callerLabels(m: MetricSet, caller: CallerIdentity, max: number): [gatewayKey: string, team: string] {
  if (!m.gatewayKeys.has(caller.keyId)) {
    if (m.gatewayKeys.size >= max) return [OTHER, OTHER];
    m.gatewayKeys.add(caller.keyId);
  }
  return [caller.keyId, caller.team ?? ''];
}

const OTHER = '(other)';

export function observePipeline(pipeline: Pipeline, m: MetricSet, prices: Readonly<Record<string, Price>>, maxGatewayKeys = 500): () => void {
  const priceOf = (c: CandidateRef) => c.deployment.price ?? prices[c.deploymentId] ?? prices[c.model];
  m.now = () => pipeline.clock.now();
  m.healthReport = () => getService(pipeline, SERVICE.health)?.report();
  // Breakers count per candidate: `endpoint/model`, plus `#key` when the endpoint has several keys.
  for (const model of pipeline.modelNames()) for (const c of pipeline.candidatesFor(model)) m.breakerState.set({ deployment: c.id }, BREAKER.closed);
  return listenAll(pipeline.events, {
    'request:start': () => {
      m.requestsInFlight++;
    },
    'request:end': (e) => {
      m.requestsInFlight--;
      const outcome = requestOutcomeClass(e);
      m.requests.add(1, e.model, outcome);
      const unanswered = e.ok ? undefined : unansweredCause(e.error);
      if (unanswered) m.unanswered.add(1, e.model, unanswered);
      m.requestDuration.observe(e.latencyMs / 1000, e.model, outcome);
      const { failovers } = attemptMoves(e.attempts);
      if (failovers > 0) m.failovers.add(failovers, e.model);
      if (e.degraded && e.ok) m.degraded.add(1, e.model, e.degraded);
      if (e.caller) {
        const [gatewayKey, team] = callerLabels(m, e.caller, maxGatewayKeys);
        m.gatewayKeyRequests.add(1, gatewayKey, team, outcome);
        let cost = 0;
        for (const a of e.attempts) if (a.usage) cost += usageCostUsd(tokenCounts(a.usage), priceOf(a.candidate));
        if (cost > 0) m.gatewayKeyCost.add(cost, gatewayKey, team);
      }
    },
    'attempt:end': (e) => {
      const deployment = e.candidate.deploymentId;
      m.attempts.add(1, deployment, e.outcome, statusClass(e.error?.status, e.ok));
      m.attemptDuration.observe(e.latencyMs / 1000, deployment, e.outcome);
      if (e.ttftMs !== undefined) m.ttft.observe(e.ttftMs / 1000, deployment);
      if (e.usage) {
        const tokens = tokenCounts(e.usage);
        m.tokens.add(tokens.inputTokens, deployment, 'input');
        m.tokens.add(tokens.outputTokens, deployment, 'output');
        if (tokens.cachedTokens > 0) m.tokens.add(tokens.cachedTokens, deployment, 'cached');
        if (tokens.cacheWriteTokens) m.tokens.add(tokens.cacheWriteTokens, deployment, 'cache_write');
        const cost = usageCostUsd(tokens, priceOf(e.candidate));
        if (cost > 0) m.cost.add(cost, deployment);
      }
    },
    'attempt:failed': (e) => {
      if (e.decision !== 'retry-same') return;
      const level = levelLabel(e.level);
      m.retries.add(1, level);
      m.backoff.observe(e.backoffMs / 1000, level);
    },
    'breaker:open': (e) => m.breakerState.set({ deployment: e.deployment }, BREAKER.open),
    'breaker:half-open': (e) => m.breakerState.set({ deployment: e.deployment }, BREAKER['half-open']),
    'breaker:close': (e) => m.breakerState.set({ deployment: e.deployment }, BREAKER.closed),
    'health:change': (e) => m.healthScore.set({ deployment: e.deployment }, e.score),
    'health:pattern': (e) => {
      m.errorPatternActive.set({ deployment: e.deployment, pattern: e.pattern, kind: e.kind }, e.active ? 1 : 0);
      if (e.active) m.errorPatterns.add(1, e.deployment, e.pattern);
    },
    'quality:change': (e) => m.qualityOk.set({ deployment: e.deployment }, e.ok ? 1 : 0),
    'quota:threshold': (e) => m.budgetUsed.set({ scope: e.scope }, e.max > 0 ? e.used / e.max : 0),
    'key:state': (e) => {
      if (e.condition === 'parked') m.parked.set(`${e.endpoint}#${e.keyId}`, { endpoint: e.endpoint, until: e.until });
    },
    'cache:lookup': (e) => m.cacheLookups.add(1, e.result),
    'cache:lost': (e) => m.promptCacheLost.add(1, e.model, e.from),
    'request:shed': () => m.shed.add(1),
    'candidate:skipped': (e) => m.translation.add(1, e.candidate.deploymentId, 'skipped', e.feature),
    'field:dropped': (e) => {
      const seen = new Set<string>();
      for (const part of e.dropped) {
        const feature = part.feature ?? 'unlisted';
        if (seen.has(feature)) continue;
        seen.add(feature);
        m.translation.add(1, e.candidate.deploymentId, 'dropped', feature);
      }
    },
  });
}

export const metrics = definePlugin<MetricsOptions, MetricsOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: metricsOptionsSchema,
  apply(pipeline, options) {
    const registry: Registry = options.registry ?? globalRegistry;
    const set = metricSet(registry, options.buckets);
    const detach = observePipeline(pipeline, set, options.prices, options.maxGatewayKeys);
    pipeline.events.once('pipeline:close', detach);
    const service: MetricsService = { registry, contentType: registry.contentType, exposition: () => registry.metrics() };
    provideService(pipeline, SERVICE.metrics, service);
  },
});

/** The registry a pipeline's metrics plugin writes to, if it has one. */
export function getMetricsRegistry(pipeline: Pipeline): Registry | undefined {
  return getService<MetricsService>(pipeline, SERVICE.metrics)?.registry as Registry | undefined;
}
