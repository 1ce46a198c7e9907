/**
 * How plugins cooperate without importing each other's packages: typed service keys, one
 * registry per pipeline (like webpack's hook registries). A plugin defines a key with
 * `defineService<T>(name, { providedBy })`, provides its service when applied, and anyone
 * holding the key gets it back typed. Per-request hand-overs use typed request slots.
 */
import type { CallerIdentity } from './caller.js';
import type { AttemptOutcome, Pipeline, RequestContext } from './contract.js';
import { SwitchyardError } from './errors.js';
import type { Candidate, ChatRequest, ChatResponse, Price } from './types.js';

declare const serviceType: unique symbol;

/** A typed name for a service; `T` exists only for the type checker. */
export interface ServiceKey<T> {
  readonly name: string;
  /** The package that provides it, for the "not applied" error. */
  readonly providedBy?: string;
  readonly [serviceType]?: T;
}

export function defineService<T>(name: string, options: { providedBy?: string } = {}): ServiceKey<T> {
  return Object.freeze({ name, providedBy: options.providedBy });
}

const registries = new WeakMap<object, Map<string, unknown>>();
const nameOf = (key: ServiceKey<unknown> | string) => (typeof key === 'string' ? key : key.name);

export function provideService<T>(pipeline: Pipeline, key: ServiceKey<T> | string, service: T): void {
  let registry = registries.get(pipeline);
  if (!registry) registries.set(pipeline, (registry = new Map()));
  registry.set(nameOf(key), service);
}

/** The service, or undefined when no plugin provides it (optional cooperation). */
export function getService<T>(pipeline: Pipeline, key: ServiceKey<T> | string): T | undefined {
  return registries.get(pipeline)?.get(nameOf(key)) as T | undefined;
}

/** The service; a coded error names the plugin to apply when none provides it. */
export function requireService<T>(pipeline: Pipeline, key: ServiceKey<T>): T {
  const service = getService(pipeline, key);
  if (service === undefined) throw new SwitchyardError('plugin', `${key.providedBy ?? key.name} is not applied to this pipeline`, { code: 'SWITCHYARD_ERR_PLUGIN_MISSING' });
  return service;
}

/** A typed per-request slot in `ctx.state`, for plugins that hand something over within one request. */
export interface RequestSlot<T> {
  readonly name: string;
  get(ctx: RequestContext): T | undefined;
  set(ctx: RequestContext, value: T): void;
}

export function defineRequestSlot<T>(name: string): RequestSlot<T> {
  return Object.freeze({
    name,
    get: (ctx: RequestContext) => ctx.state[name] as T | undefined,
    set: (ctx: RequestContext, value: T) => {
      ctx.state[name] = value;
    },
  });
}

/* ---------------------------------------------------------------- first-party contracts */

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

/** The cache's stale answer for one request; a degrade plan that lists `stale-cache` claims it to serve it in its own order. */
export interface StaleAnswerOffer {
  lookup(): Promise<ChatResponse | undefined>;
  claimed: boolean;
}

export interface MetricsService {
  /** The registry (a prom-client `Registry`), so a host can tell whether it already serves it. */
  readonly registry: object;
  readonly contentType: string;
  /** The Prometheus text exposition of every metric. */
  exposition(): Promise<string>;
}

/** A spend projection for the current UTC day or month (plugin-quota's forecast.ts). */
export interface SpendForecast {
  period: 'day' | 'month';
  /** First and last UTC day of the period. */
  from: string;
  until: string;
  /** Spent so far in the period, estimates included (USD). */
  spentUsd: number;
  /** At the period's pace so far, what it will have spent at its end. */
  projectedUsd: number;
  ratePerHourUsd: number;
  /** The spend budgets of that period: when each runs out at this pace (ISO time; null: not within the period). */
  budgets: { scope: string; limit: 'spendPerDay' | 'spendPerMonth'; maxUsd: number; spentUsd: number; projectedUsd: number; exhaustsAt: string | null }[];
}

/** The usage ledger's query side (the gateway's /switchyard/usage). */
export interface UsageQueryService {
  /** Totals for whole UTC days `since`..`until` (defaults: the last 30 days), grouped; with `forecast` its projection too. */
  answer(query: { since?: string | null; until?: string | null; groupBy?: string | null; forecast?: string | null }): Promise<unknown>;
  /** The spend projection of the current UTC day or month (`/status`). */
  forecast?(period: 'day' | 'month'): Promise<SpendForecast>;
  /** Waits for the usage log's pending appends. */
  flush(): Promise<void>;
}

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

/** What one attempt costs, as the usage ledger bills it (the budgets of other plugins spend the same amounts). */
export interface PricingService {
  /** USD per million tokens for a candidate: its deployment's `price`, else the price table. */
  priceFor(candidate: Candidate): Price | undefined;
  /**
   * The attempt's cost in USD: the vendor's reported usage, or the estimate of an attempt that
   * reached the vendor and failed without usage (`request` caps an elapsed-time estimate at its
   * `max_tokens`).
   */
  attemptCostUsd(outcome: AttemptOutcome, estimatedInputTokens: number, request?: ChatRequest): number;
}

/** One call of the gateway's admin API (`/switchyard/keys…`, `/switchyard/teams…`), already authenticated with an admin key. */
export interface AdminCall {
  method: string;
  /** The path, e.g. `/switchyard/keys/key_0123456789abcdef/rotate`. */
  path: string;
  query: Readonly<Record<string, string>>;
  /** The JSON body (POST / PATCH), or undefined. */
  body: unknown;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** What `authenticate` answers: the caller, nothing (no such key, in any way), or a coded refusal that may name why (an expired key). */
export type Authentication = CallerIdentity | SwitchyardError | undefined;

/** Gateway keys kept outside the config (tenants' virtual keys): how a host authenticates callers and manages keys. */
export interface TenantsService {
  /**
   * The caller `presented` (the key as the client sent it) belongs to. Unknown ids, wrong secrets,
   * revoked and malformed keys all answer `undefined` by the same path (no timing signal tells
   * them apart); an expired key answers a coded error naming the expiry. Answered at once when
   * the key is cached, else a promise (one store read).
   */
  authenticate(presented: string): Authentication | Promise<Authentication>;
  /** Whether the caller may use a logical model (the model list a caller sees): at once when the key is cached, else a promise (one store read). */
  allowsModel(caller: CallerIdentity, model: string): boolean | Promise<boolean>;
  /** The admin API: create, list, show, usage, update, rotate, revoke keys; team budgets. Throws coded errors. */
  admin(call: AdminCall): Promise<AdminAnswer>;
}

export const SERVICE = Object.freeze({
  /** Provided by @switchyard/plugin-retry; the hedge plugin spends it. */
  retryBudget: defineService<RetryBudgetService>('switchyard.retry-budget', { providedBy: '@switchyard/plugin-retry' }),
  /** Provided by @switchyard/plugin-metrics: what the gateway's /metrics serves. */
  metrics: defineService<MetricsService>('switchyard.metrics', { providedBy: '@switchyard/plugin-metrics' }),
  /** Provided by @switchyard/plugin-quota when its ledger is on; the gateway's usage route asks it. */
  usage: defineService<UsageQueryService>('switchyard.usage', { providedBy: '@switchyard/plugin-quota' }),
  /** Provided by @switchyard/plugin-health: per-deployment health for /status and metrics. */
  health: defineService<HealthReportService>('switchyard.health-report', { providedBy: '@switchyard/plugin-health' }),
  /** Provided by @switchyard/plugin-quota: the price table and the ledger's bill of an attempt. */
  pricing: defineService<PricingService>('switchyard.pricing', { providedBy: '@switchyard/plugin-quota' }),
  /** Provided by @switchyard/plugin-tenants: the gateway authenticates virtual keys and serves the admin API with it. */
  tenants: defineService<TenantsService>('switchyard.tenants', { providedBy: '@switchyard/plugin-tenants' }),
});

export const REQUEST_SLOT = Object.freeze({
  /** Set by @switchyard/plugin-cache in classify; read by its degrade tap and by @switchyard/plugin-degrade. */
  staleAnswer: defineRequestSlot<StaleAnswerOffer>('switchyard:stale-answer'),
});
