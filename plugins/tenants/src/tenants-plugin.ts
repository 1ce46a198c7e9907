/**
 * The tenants plugin: virtual gateway keys with their own allowed models, rate limits and
 * budgets (per key and per team, per UTC day and month), checked before any vendor call and
 * settled with the real cost after it, in the pipeline's StateStore (shared and exact across
 * gateways on Redis). The gateway authenticates callers and serves the admin API through the
 * `SERVICE.tenants` service this plugin provides; plugins attribute by `ctx.caller`.
 *
 * Taps: classify at STAGE.FIRST (the model allow-list: a 403 before anything else runs), route
 * at STAGE.LAST (the reservation, once the candidates and their prices are known), recordAttempt
 * (each attempt's cost, as the usage ledger bills it), recordRequest (settlement, budget alerts),
 * every provider's call at STAGE.DEFAULT - 1 (the key's share of the origin's connections).
 */
import { SERVICE, TENANT_ERRORS, type PricingService, type TenantsService } from '@switchyard/contracts';
import { declareDurableKeys, definePlugin, getService, provideService, STAGE, storeLocal, SwitchyardError, type Candidate, type ChatRequest, type Classification, type Pipeline, type Price, type RequestContext } from '@switchyard/core';
import { serverToolKindsOffered, tapMaybeAsync, tokenCounts, toolCallsCostUsd, usageCostUsd } from '@switchyard/core/internal';
import { adminApi, teamBudgetOf } from './admin-api.js';
import { BudgetAlerts } from './budget-alerts.js';
import { toMicros } from './budget-windows.js';
import { reservationTokens, reservationUsd, serverToolsOf, unpricedTool } from './cost-estimate.js';
import { TENANTS_ERRORS } from './error-codes.js';
import { declaredEntries, KeyCheck, policyOf, type DeclaredEntry } from './key-check.js';
import { KeyDirectory, type KeyEntry } from './key-directory.js';
import type { KeyPolicy } from './key-record.js';
import { isKeyId } from './key-secret.js';
import { PLUGIN_NAME } from './name.js';
import { connectionShares } from './share-taps.js';
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
  /** The request was settled: an attempt that ends after it is added on its own. */
  settled?: boolean;
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
        // A deployment without a price cannot be reserved for: a budgeted key never reaches it unless allowed.
        const chosen = budgeted && !options.allowUnpriced ? pricedOnly(candidates, policy, ctx.model) : candidates;
        const estimate = budgeted ? Math.ceil(reservationUsd(chosen, ctx.request, options, priceOf) * 1_000_000) : 0;
        const tokens = policy.limits?.tpm !== undefined ? reservationTokens(chosen, ctx.request, options) : 0;
        const reserved = counters.reserve(caller, estimate, clock.now(), tokens);
        if (reserved instanceof Promise) {
          return reserved.then((r) => {
            state.reservation = r;
            return chosen;
          });
        }
        state.reservation = reserved;
        return chosen;
      };
      const pricedOnly = (list: Candidate[], policy: KeyPolicy, model: string): Candidate[] => {
        const tools = serverToolsOf(ctx.request, options.serverToolCalls);
        const priced = list.filter((c) => priceOf(c) !== undefined);
        if (priced.length === 0 && list.length > 0) throw unpricedRefusal(policy, model, list);
        // A tool billed per call at a price nobody knows would be reserved at $0.
        const toolPriced = tools.length === 0 ? priced : priced.filter((c) => unpricedTool(tools, priceOf(c)) === undefined);
        if (toolPriced.length === 0) throw unpricedToolRefusal(policy, model, unpricedTool(tools, priceOf(priced[0]!))!);
        return toolPriced.length === list.length ? list : toolPriced;
      };
      const team = policy.team === undefined ? undefined : teamBudget(policy.team);
      return team instanceof Promise ? team.then(reserve) : reserve(team);
    });

    const shares = connectionShares(pipeline, options);

    pipeline.hooks.recordAttempt.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (outcome, ctx) => {
      shares?.ended(ctx, outcome.attempt);
      const state = ctx.state.tenants;
      if (!state) return;
      const prices = pricingOf();
      const usd = prices ? prices.attemptCostUsd(outcome, ctx.classification.estimatedInputTokens, ctx.request as ChatRequest) : usageCostUsd(tokenCounts(outcome.usage), priceOf(outcome.candidate)) + toolCallsCostUsd(outcome.usage, priceOf(outcome.candidate), serverToolKindsOffered(ctx.request));
      const micros = toMicros(usd);
      const tokens = outcome.usage ? tokenCounts(outcome.usage) : undefined;
      const used = tokens ? tokens.inputTokens + tokens.outputTokens : 0;
      if (state.settled && state.reservation) {
        if (micros > 0 || used > 0) void counters.addLate(state.reservation, micros, used).then((spends) => alerts.observe(spends), reportError('late-attempt'));
        return;
      }
      state.costMicros += micros;
      state.tokens += used;
    });

    pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (_outcome, ctx) => {
      shares?.ended(ctx);
      const state = ctx.state.tenants;
      if (!state?.reservation) return;
      state.settled = true;
      alerts.observe(await counters.settle(state.reservation, state.costMicros, state.tokens));
    });

    const service: TenantsService = {
      authenticate: (presented) => check.authenticate(presented),
      allowsModel(caller, model) {
        const entry = entryFor(caller.keyId);
        if (entry === undefined) return true;
        // A copy past its cache period is read again, never answered from (a key narrowed or revoked meanwhile).
        return entry instanceof Promise ? entry.then((e) => e.allows(model)) : entry.allows(model);
      },
      admin: adminApi({ directory, counters, declared, teams: options.teams, clock, alerts, usage: () => getService(pipeline, SERVICE.usage) }),
    };
    provideService(pipeline, SERVICE.tenants, service);
  },
});

function unpricedRefusal(policy: KeyPolicy, model: string, candidates: readonly Candidate[]): SwitchyardError {
  return new SwitchyardError('invalid-request', `gateway key ${policy.id} (${policy.name}) has a budget and no deployment of model "${model}" has a price (${candidates.map((c) => c.deploymentId).join(', ')}); set their prices, or allowUnpriced: true on @switchyard/plugin-tenants`, {
    code: TENANTS_ERRORS.unpriced,
    status: 400,
    path: 'model',
    retryable: false,
  });
}

function unpricedToolRefusal(policy: KeyPolicy, model: string, kind: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `gateway key ${policy.id} (${policy.name}) has a budget and no deployment of model "${model}" has a per-call price for the server tool "${kind}"; set perCall.${kind} on their price, or leave the tool out`, {
    code: TENANTS_ERRORS.unpricedTool,
    status: 400,
    path: 'tools',
    retryable: false,
  });
}

function modelNotAllowed(policy: KeyPolicy, model: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `gateway key ${policy.id} (${policy.name}) may not use model "${model}"; it may use: ${policy.models?.join(', ') || '(none)'}`, {
    code: TENANT_ERRORS.SWITCHYARD_ERR_MODEL_NOT_ALLOWED,
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
