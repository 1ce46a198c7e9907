/**
 * Every Switchyard metric, created once per prom-client Registry: a reloaded pipeline (a new
 * plugin instance) keeps counting into the same series. Labels are bounded by the config:
 * logical model, deployment id, endpoint, outcome class, status class, level names.
 */

import { type HealthReportEntry } from '@switchyard/contracts';
import { Gauge, type Registry } from 'prom-client';
import { Tally, TallyHistogram } from './tally.js';

/** Seconds: from a cached answer (~1 ms) to a long generation (2 min). */
export const DEFAULT_DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
export const DEFAULT_TTFT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
export const DEFAULT_BACKOFF_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

export interface Buckets {
  request: number[];
  attempt: number[];
  ttft: number[];
  backoff: number[];
}

export interface MetricSet {
  /** Histograms and counters: label values in labelNames order. */
  requestDuration: TallyHistogram;
  attemptDuration: TallyHistogram;
  ttft: TallyHistogram;
  backoff: TallyHistogram;
  requests: Tally;
  unanswered: Tally;
  attempts: Tally;
  failovers: Tally;
  retries: Tally;
  degraded: Tally;
  tokens: Tally;
  cost: Tally;
  cacheLookups: Tally;
  /** Conversations a failover moved off the deployment holding their prompt cache (plugin-router's affinity). */
  promptCacheLost: Tally;
  shed: Tally;
  /** The translation policy: deployments skipped and request parts dropped, by the table's feature name (bounded). */
  translation: Tally;
  /** Per gateway key (`CallOptions.caller`): bounded, see `callerLabels`. */
  gatewayKeyRequests: Tally;
  gatewayKeyCost: Tally;
  /** Key ids that have a series of their own; later ones share `(other)`. */
  gatewayKeys: Set<string>;
  breakerState: Gauge<'deployment'>;
  healthScore: Gauge<'deployment'>;
  errorPatternActive: Gauge<'deployment' | 'pattern' | 'kind'>;
  errorPatterns: Tally;
  qualityOk: Gauge<'deployment'>;
  errorRateEwma: Gauge<'deployment'>;
  /** The health plugin's report (per deployment), read at scrape time; unset without the plugin. */
  healthReport: () => Record<string, HealthReportEntry> | undefined;
  inFlight: Gauge;
  requestsInFlight: number;
  budgetUsed: Gauge<'scope'>;
  keysParked: Gauge<'endpoint'>;
  /** Parked keys by `endpoint#keyId` → until (pipeline clock), read by the keys_parked gauge. */
  parked: Map<string, { endpoint: string; until: number }>;
  now: () => number;
}

const sets = new WeakMap<Registry, MetricSet>();

export function metricSet(registry: Registry, buckets: Buckets): MetricSet {
  const existing = sets.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const parked = new Map<string, { endpoint: string; until: number }>();
  const set: MetricSet = {
    requestDuration: new TallyHistogram({ name: 'switchyard_request_duration_seconds', help: 'Request latency across every attempt and wait, by logical model and outcome.', labelNames: ['model', 'outcome'], buckets: buckets.request, registers }),
    attemptDuration: new TallyHistogram({ name: 'switchyard_attempt_duration_seconds', help: 'Upstream attempt latency, by deployment and outcome class.', labelNames: ['deployment', 'outcome'], buckets: buckets.attempt, registers }),
    ttft: new TallyHistogram({ name: 'switchyard_time_to_first_token_seconds', help: 'Time from attempt start to the first content token (streams).', labelNames: ['deployment'], buckets: buckets.ttft, registers }),
    backoff: new TallyHistogram({ name: 'switchyard_backoff_seconds', help: 'Waits before retrying the same candidate, by backoff level (1 = the quick probe).', labelNames: ['level'], buckets: buckets.backoff, registers }),
    requests: new Tally({ name: 'switchyard_requests_total', help: 'Finished requests, by logical model and outcome (success, degraded, error, cancelled).', labelNames: ['model', 'outcome'], registers }),
    unanswered: new Tally({ name: 'switchyard_requests_unanswered_total', help: 'Failed requests no candidate answered, by logical model and cause: failed (every candidate tried failed) or held-back (none could be tried: cooling after 429s, resting, filtered out).', labelNames: ['model', 'cause'], registers }),
    attempts: new Tally({ name: 'switchyard_attempts_total', help: 'Upstream attempts, by deployment, outcome class and HTTP status class.', labelNames: ['deployment', 'outcome', 'status_class'], registers }),
    failovers: new Tally({ name: 'switchyard_failovers_total', help: 'Moves from one candidate to another within a request.', labelNames: ['model'], registers }),
    retries: new Tally({ name: 'switchyard_retries_total', help: 'Retries of the same candidate after a backoff, by backoff level.', labelNames: ['level'], registers }),
    degraded: new Tally({ name: 'switchyard_degraded_total', help: 'Answers from the degrade stage, by logical model and level.', labelNames: ['model', 'level'], registers }),
    tokens: new Tally({ name: 'switchyard_tokens_total', help: 'Tokens reported by vendors, by deployment and direction (input, output, cached: read from the prompt cache, cache_write: written to it; both part of input).', labelNames: ['deployment', 'direction'], registers }),
    cost: new Tally({ name: 'switchyard_cost_usd_total', help: 'Estimated spend in USD from deployment prices, by deployment.', labelNames: ['deployment'], registers }),
    cacheLookups: new Tally({ name: 'switchyard_cache_lookups_total', help: 'Response cache lookups, by result (hit, miss, stale).', labelNames: ['result'], registers }),
    promptCacheLost: new Tally({ name: 'switchyard_prompt_cache_lost_total', help: "Conversations moved off the deployment that held their prompt cache (the router's affinity: it failed or was filtered out), by logical model and that deployment.", labelNames: ['model', 'deployment'], registers }),
    shed: new Tally({ name: 'switchyard_shed_total', help: 'Requests refused by the host before the pipeline (load shedding).', registers }),
    translation: new Tally({ name: 'switchyard_translation_total', help: "Requests from a client of another API: deployments skipped (a capability only the client's API has, or translate: strict) and parts dropped for the deployment that answered, by deployment, action and the dialect table's feature.", labelNames: ['deployment', 'action', 'feature'], registers }),
    gatewayKeyRequests: new Tally({ name: 'switchyard_gateway_key_requests_total', help: 'Finished requests per gateway key (its id, never the secret) and team, by outcome.', labelNames: ['gateway_key', 'team', 'outcome'], registers }),
    gatewayKeyCost: new Tally({ name: 'switchyard_gateway_key_cost_usd_total', help: 'Estimated spend in USD from deployment prices, per gateway key and team.', labelNames: ['gateway_key', 'team'], registers }),
    gatewayKeys: new Set(),
    breakerState: new Gauge({ name: 'switchyard_breaker_state', help: 'Circuit breaker state per deployment: 0 closed, 1 half-open, 2 open.', labelNames: ['deployment'], registers }),
    healthScore: new Gauge({ name: 'switchyard_health_score', help: 'Health score per deployment (0..1) at its last change.', labelNames: ['deployment'], registers }),
    errorPatternActive: new Gauge({ name: 'switchyard_error_pattern_active', help: 'Error patterns going on (1) or ended (0) per deployment: same-error (one error again and again) or timeouts, with the error kind.', labelNames: ['deployment', 'pattern', 'kind'], registers }),
    errorPatterns: new Tally({ name: 'switchyard_error_patterns_total', help: 'Error patterns that started, by deployment and pattern.', labelNames: ['deployment', 'pattern'], registers }),
    qualityOk: new Gauge({ name: 'switchyard_quality_ok', help: 'Quality probe verdict per deployment: 1 passing and like its baseline, 0 failing or drifting.', labelNames: ['deployment'], registers }),
    errorRateEwma: new Gauge({
      name: 'switchyard_health_error_rate_ewma',
      help: 'Exponentially weighted error rate per deployment (0..1), from @switchyard/plugin-health.',
      labelNames: ['deployment'],
      registers,
      // Read from the health plugin when scraped: it moves with time, not only on events.
      collect() {
        const report = set.healthReport();
        if (!report) return;
        for (const [deployment, entry] of Object.entries(report)) this.set({ deployment }, entry.errorRateEwma);
      },
    }),
    healthReport: () => undefined,
    inFlight: new Gauge({
      name: 'switchyard_in_flight',
      help: 'Requests inside the pipeline now.',
      registers,
      // A plain number per request, read at scrape time: cheaper than two gauge updates.
      collect() {
        this.set(set.requestsInFlight);
      },
    }),
    budgetUsed: new Gauge({ name: 'switchyard_budget_used_ratio', help: 'Share of a budget used when it last crossed a threshold, by budget scope.', labelNames: ['scope'], registers }),
    keysParked: new Gauge({
      name: 'switchyard_keys_parked',
      help: 'Keys parked now (out of balance or rejected), by endpoint.',
      labelNames: ['endpoint'],
      registers,
      collect() {
        const now = set.now();
        const counts = new Map<string, number>();
        for (const [key, p] of parked) {
          if (p.until <= now) parked.delete(key);
          counts.set(p.endpoint, (counts.get(p.endpoint) ?? 0) + (p.until > now ? 1 : 0));
        }
        for (const [endpoint, n] of counts) this.set({ endpoint }, n);
      },
    }),
    parked,
    requestsInFlight: 0,
    now: Date.now,
  };
  sets.set(registry, set);
  return set;
}
