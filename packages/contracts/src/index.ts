/**
 * @switchyard/contracts: what Switchyard's first-party packages say to each other without
 * importing each other. Service keys, typed request slots and published hooks (the three ways
 * plugins cooperate), the events of the plugins that first-party observers (metrics, alerts,
 * the gateway's logs and status page) listen to, and the error codes more than one package
 * raises or answers. Importing this package adds its events and codes to core's maps.
 */
import { HEALTH_REPORT, DEMOTED } from './health.js';
import { METRICS } from './metrics.js';
import { PRICING, USAGE } from './quota.js';
import { RETRY_BUDGET } from './retry.js';
import { STALE_ANSWER } from './cache.js';
import { SHORTENABLE } from './routing.js';
import { TENANTS } from './tenants.js';

export { BREAKER_HOOKS, BREAKER_PLUGIN, type BreakerOpened, type BreakerTransition } from './breaker.js';
export type { BalanceUpdate } from './balance.js';
export type { ConfigReload, RequestShed } from './host.js';
export { HEALTH_HOOKS, HEALTH_PLUGIN, type ErrorPattern, type HealthChange, type QualityChange, type HealthReportEntry, type HealthReportService, type QualityDrift } from './health.js';
export type { MetricsService } from './metrics.js';
export { QUOTA_PLUGIN, type BudgetForecast, type KeyStateChange, type PricingService, type QuotaThreshold, type UsageBilled, type SpendForecast, type UsageQueryService } from './quota.js';
export type { DeploymentMisconfigured, RetryBudgetService } from './retry.js';
export type { CacheLookup, StaleAnswerOffer } from './cache.js';
export type { QueueReplay, SloChange } from './degrade.js';
export { ROUTING_ERRORS, type CacheLost, type ConversationSource, type RaceSkipped, type TrafficDrift } from './routing.js';
export { TENANT_ERRORS, TENANTS_PLUGIN, type AdminAnswer, type AdminCall, type Authentication, type TenantBudgetEvent, type TenantsService } from './tenants.js';

/** The first-party services, by what they do. */
export const SERVICE = Object.freeze({
  retryBudget: RETRY_BUDGET,
  metrics: METRICS,
  usage: USAGE,
  health: HEALTH_REPORT,
  pricing: PRICING,
  tenants: TENANTS,
});

/** The first-party request slots: per-request hand-overs between plugins. */
export const REQUEST_SLOT = Object.freeze({
  staleAnswer: STALE_ANSWER,
  demoted: DEMOTED,
  shortenable: SHORTENABLE,
});
