/**
 * The tenants plugin: virtual gateway keys with their own allowed models, rate limits and
 * budgets (per key and per team, per UTC day and month), checked before any vendor call and
 * settled with the real cost after it, in the pipeline's StateStore (shared and exact across
 * gateways on Redis). The gateway authenticates callers and serves the admin API through the
 * `SERVICE.tenants` service this plugin provides; plugins attribute by `ctx.caller`.
 *
 * Taps: classify at STAGE.FIRST (the model allow-list: a 403 before anything else runs), route
 * at STAGE.LAST (the reservation, once the candidates and their prices are known), recordAttempt
 * (each attempt's cost, as the usage ledger bills it), recordRequest (settlement, budget alerts).
 */
import {
  declareDurableKeys,
  definePlugin,
  getService,
  provideService,
  SERVICE,
  STAGE,
  storeLocal,
  SwitchyardError,
  tapMaybeAsync,
  tokenCounts,
  usageCostUsd,
  type Candidate,
  type ChatRequest,
  type Classification,
  type Pipeline,
  type Price,
  type PricingService,
  type RequestContext,
  type TenantsService,
} from '@switchyard/core';
import { adminApi, teamBudgetOf } from './admin-api.js';
import { BudgetAlerts } from './budget-alerts.js';
import { toMicros } from './budget-windows.js';
import { estimateUsd, outputLimitOf } from './cost-estimate.js';
import { declaredEntries, KeyCheck, policyOf, type DeclaredEntry } from './key-check.js';
import { KeyDirectory, type KeyEntry } from './key-directory.js';
import type { KeyPolicy } from './key-record.js';
import { isKeyId } from './key-secret.js';
import { PLUGIN_NAME } from './name.js';
import { tenantsOptionsSchema, type Budget, type TenantsOptions, type TenantsOptionsInput } from './options.js';
import { SpendCounters, type Caller, type Reservation } from './reservations.js';

/** What the plugin keeps for one request of a known key. */
export interface TenantRequestState {
  policy: KeyPolicy;
  reservation?: Reservation;
  /** Real cost so far (micro-dollars), attempt by attempt. */
  costMicros: number;
  /** Prompt + completion tokens so far. */
  tokens: number;
}

declare module '@switchyard/core' {
  interface RequestState {
    tenants?: TenantRequestState;
  }
}

export const tenants = definePlugin<TenantsOptions, TenantsOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: tenantsOptionsSchema,
  apply(pipeline, options) {
    const { store, clock } = pipeline;
    const p = options.storePrefix;
    // Keys, teams and spend per day and month are durable records; minute counters and requests in flight are soft.
    declareDurableKeys(store, PLUGIN_NAME, { records: [`${p}:key:`, `${p}:team:`, `${p}:keys`, `${p}:teams`, `${p}:budget-level:`], tallies: [`${p}:spend:`] });
    // Held with the store: a reload keeps the cache and its pub/sub subscription.
    const directory = storeLocal(store, `switchyard.tenants.directory:${options.storePrefix}`, () => new KeyDirectory(store, options.storePrefix, { clock, ttlMs: options.cacheTtlMs, maxEntries: options.maxCachedKeys }));
    Object.assign(directory, { clock, ttlMs: options.cacheTtlMs, maxEntries: options.maxCachedKeys });
    const declared = declaredEntries(options.keys, clock.now());
    const check = new KeyCheck(directory, declared, clock);
    const counters = new SpendCounters(store, options.storePrefix);
    const reportError = (stage: string) => (error: unknown) => pipeline.events.emit('plugin-error', { plugin: PLUGIN_NAME, stage, error });
    const alerts = new BudgetAlerts(store, options.storePrefix, () => pipeline.events, reportError('budget-alert'));

    // Looked up on first use: the quota plugin may be applied after this one.
    let pricing: PricingService | undefined | null = null;
    const pricingOf = () => (pricing === null ? (pricing = getService(pipeline, SERVICE.pricing)) : pricing);
    const priceOf = (c: Candidate): Price | undefined => pricingOf()?.priceFor(c) ?? c.deployment.price ?? options.prices[c.deploymentId] ?? options.prices[c.model];

    const entryFor = (keyId: string): KeyEntry | DeclaredEntry | Promise<KeyEntry> | undefined => check.declaredKey(keyId) ?? (isKeyId(keyId) ? directory.key(keyId) : undefined);
    const teamBudget = (team: string): Budget | undefined | Promise<Budget | undefined> => {
      const stored = directory.team(team);
      return stored instanceof Promise ? stored.then((t) => teamBudgetOf(t, options.teams, team)) : teamBudgetOf(stored, options.teams, team);
    };

    tapMaybeAsync(pipeline.hooks.classify, { name: PLUGIN_NAME, stage: STAGE.FIRST }, (classification: Classification, ctx: RequestContext) => {
      if (!ctx.caller) return classification;
      const entry = entryFor(ctx.caller.keyId);
      if (!entry) return classification;
      if (entry instanceof Promise) return entry.then((e) => admit(e, classification, ctx));
      return admit(entry, classification, ctx);
    });

    /** The allow-list, before anything else: a model outside it never reaches routing or a vendor. */
    function admit(entry: KeyEntry | DeclaredEntry, classification: Classification, ctx: RequestContext): Classification {
      const policy = policyOf(entry);
      if (!policy) return classification;
      if (!entry.allows(ctx.model)) throw modelNotAllowed(policy, ctx.model);
      ctx.state.tenants = { policy, costMicros: 0, tokens: 0 };
      return classification;
    }

    tapMaybeAsync(pipeline.hooks.route, { name: PLUGIN_NAME, stage: STAGE.LAST }, (candidates: Candidate[], classification: Classification, ctx: RequestContext) => {
      const state = ctx.state.tenants;
      if (!state) return candidates;
      const { policy } = state;
      const reserve = (team: Budget | undefined): Candidate[] | Promise<Candidate[]> => {
        const caller: Caller = { keyId: policy.id, keyName: policy.name, team: policy.team, limits: policy.limits, budget: policy.budget, teamBudget: team };
        const budgeted = policy.budget !== undefined || team !== undefined;
        const estimate = budgeted ? Math.ceil(estimateUsd(candidates, classification.estimatedInputTokens, outputLimitOf(ctx.request, options.reserveOutputTokens), priceOf) * 1_000_000) : 0;
        const reserved = counters.reserve(caller, estimate, clock.now());
        if (reserved instanceof Promise) {
          return reserved.then((r) => {
            state.reservation = r;
            return candidates;
          });
        }
        state.reservation = reserved;
        return candidates;
      };
      const team = policy.team === undefined ? undefined : teamBudget(policy.team);
      return team instanceof Promise ? team.then(reserve) : reserve(team);
    });

    pipeline.hooks.recordAttempt.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (outcome, ctx) => {
      const state = ctx.state.tenants;
      if (!state) return;
      const prices = pricingOf();
      const usd = prices ? prices.attemptCostUsd(outcome, ctx.classification.estimatedInputTokens, ctx.request as ChatRequest) : usageCostUsd(tokenCounts(outcome.usage), priceOf(outcome.candidate));
      state.costMicros += toMicros(usd);
      if (outcome.usage) {
        const tokens = tokenCounts(outcome.usage);
        state.tokens += tokens.inputTokens + tokens.outputTokens;
      }
    });

    pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (_outcome, ctx) => {
      const state = ctx.state.tenants;
      if (!state?.reservation) return;
      alerts.observe(await counters.settle(state.reservation, state.costMicros, state.tokens));
    });

    const service: TenantsService = {
      authenticate: (presented) => check.authenticate(presented),
      allowsModel(caller, model) {
        const entry = entryFor(caller.keyId);
        return entry === undefined || entry instanceof Promise || entry.allows(model);
      },
      admin: adminApi({ directory, counters, declared, teams: options.teams, clock, alerts, usage: () => getService(pipeline, SERVICE.usage) }),
    };
    provideService(pipeline, SERVICE.tenants, service);
  },
});

function modelNotAllowed(policy: KeyPolicy, model: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `gateway key ${policy.id} (${policy.name}) may not use model "${model}"; it may use: ${policy.models?.join(', ') || '(none)'}`, {
    code: 'SWITCHYARD_ERR_MODEL_NOT_ALLOWED',
    status: 403,
    path: 'model',
    retryable: false,
  });
}

/** The tenants service of a pipeline (the gateway's way in), when the plugin is applied. */
export function getTenants(pipeline: Pipeline): TenantsService | undefined {
  return getService(pipeline, SERVICE.tenants);
}

export default tenants;
