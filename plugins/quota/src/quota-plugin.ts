/**
 * The quota plugin: usage and cost accounting, budgets that filter candidates before a call,
 * key rotation on 429 / 402, and pacing from the vendors' remaining-quota headers.
 *
 * Taps: route at STAGE.FILTER (drops keys that are parked, resting, held or over budget; holds
 * the request's token bound on its tpm budgets), every provider's call at STAGE.DEFAULT - 1 (the
 * attempt's endpoint and key tpm budgets hold it too),
 * recordAttempt at STAGE.DEFAULT (spends budgets, bills usage, rests or parks keys, paces),
 * recordRequest (cache hits and degraded answers for the report), close (the usage totals'
 * writes, which no answer waits for).
 */
import { SERVICE, type SpendForecast, type UsageQueryService } from '@switchyard/contracts';
import { candidateRef, declareDurableKeys, defineService, definePlugin, provideService, requireService, storeLocal, SwitchyardError, STAGE, tapEveryCall, type AttemptOutcome, type Candidate, type ChatRequest, type Classification, type Pipeline, type RequestContext } from '@switchyard/core';
import { failClosed, formatDuration, isUnsentFailure, reservationTokens, tapMaybeAsync } from '@switchyard/core/internal';
import { BudgetBook, describeExhaustion, type Exhaustion, type TokenHold } from './budgets.js';
import { KeyStates, type KeyState } from './key-states.js';
import { UsageLedger, type UsageReport } from './ledger.js';
import { PLUGIN_NAME } from './name.js';
import { quotaOptionsSchema, type QuotaOptions, type QuotaOptionsInput } from './options.js';
import { pacingPauseMs } from './pacing.js';
import { billAttempt } from './attempt-bill.js';
import { outputSpeedFor, priceFor } from './prices.js';
import { UsageLog } from './usage-log.js';
import { forecastSpend, watchBudgetForecasts, type ForecastPeriod } from './forecast.js';
import { isoTime, parseForecastPeriod, parseUsageQuery, type UsageAnswer, type UsageRecord } from './usage-record.js';
import { UsageTotals } from './usage-totals.js';
import { checkBudgetsAgainst } from './validate.js';

const USAGE_LEDGER = defineService<UsageLedger>('switchyard.usage-ledger', { providedBy: PLUGIN_NAME });

/** The ledger's query service key (the gateway's /switchyard/usage). */
export const USAGE_SERVICE = SERVICE.usage;

export interface UsageService extends UsageQueryService {
  answer(query: { since?: string | null; until?: string | null; groupBy?: string | null; forecast?: string | null }): Promise<UsageAnswer & { forecast?: SpendForecast }>;
  forecast(period: ForecastPeriod): Promise<SpendForecast>;
}

/** The usage report of `pipeline`; throws a coded error when the quota plugin is not applied. */
export function getUsage(pipeline: Pipeline): UsageReport {
  return requireService(pipeline, USAGE_LEDGER).report(pipeline.clock.now());
}

/** What a request holds on `tpm` budgets until it ends: its own (model and tag scopes) and each attempt's (endpoint and key scopes). */
interface TokenHolds {
  /** The request's upper bound of tokens. */
  tokens: number;
  request?: TokenHold;
  attempts: Map<number, TokenHold>;
}

declare module '@switchyard/core' {
  interface RequestState {
    quotaHolds?: TokenHolds;
  }
}

interface Removal {
  candidate: Candidate;
  state?: KeyState;
  budget?: Exhaustion;
}

export const quota = definePlugin<QuotaOptions, QuotaOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: quotaOptionsSchema,
  apply(pipeline, options) {
    checkBudgetsAgainst(pipeline, options.budgets);
    // Budget spend, the thresholds already announced and the usage totals are durable; key cooldowns are soft.
    const p = options.storePrefix;
    declareDurableKeys(pipeline.store, PLUGIN_NAME, { tallies: [`${p}:used:`, `${p}:threshold:`, `${p}:usage:`] });
    const { clock } = pipeline;
    // Held with the store, not the pipeline: a gateway reload keeps the report's totals.
    const ledger = storeLocal(pipeline.store, `switchyard.quota.ledger:${options.storePrefix}`, () => new UsageLedger(clock.now(), options.maxReportedTags));
    provideService(pipeline, USAGE_LEDGER, ledger);
    const book = new BudgetBook(options.budgets, pipeline, options.storePrefix, options.thresholds);
    const keys = new KeyStates(pipeline, options.storePrefix);
    const holdPaced = options.pacing !== false && options.pacing.mode === 'hold';
    const onLedgerError = (error: unknown) => pipeline.events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'ledger', error });
    const totals = options.ledger ? new UsageTotals(pipeline.store, options.storePrefix) : undefined;
    const log = options.ledger?.log ? storeLocal(pipeline.store, `switchyard.quota.log:${options.ledger.log}`, () => new UsageLog(options.ledger!.log!, onLedgerError)) : undefined;
    provideService(pipeline, SERVICE.pricing, {
      priceFor: (candidate) => priceFor(candidate, options.prices),
      attemptCostUsd: (outcome, estimatedInputTokens, request) =>
        billAttempt(outcome, { estimatedInputTokens, price: priceFor(outcome.candidate, options.prices), outputTokensPerSecond: outputSpeedFor(outcome.candidate, options.estimates), request }).costUsd,
    });
    if (totals) {
      const forecast = (period: ForecastPeriod) => forecastSpend(period, totals, book, clock.now());
      const service: UsageService = {
        async answer(query) {
          const period = parseForecastPeriod(query.forecast);
          const answer = await totals.answer(parseUsageQuery(query, clock.now()));
          return period ? { ...answer, forecast: await forecast(period) } : answer;
        },
        forecast,
        flush: async () => {
          await totals.settled();
          await log?.flush();
        },
      };
      provideService(pipeline, USAGE_SERVICE, service);
    }
    if (totals) pipeline.hooks.close.tapPromise(PLUGIN_NAME, () => totals.settled());
    if (options.forecast !== false && book.hasSpendLimits) {
      const stop = watchBudgetForecasts(pipeline, book, options.forecast, (error) => pipeline.events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'forecast', error }));
      pipeline.events.once('pipeline:close', stop);
    }

    /** Candidates in a key state leave (a paced one goes last, unless pacing holds); `budgets[i]`: the limit that stops candidate i. */
    const order = (candidates: Candidate[], states: readonly (KeyState | undefined)[], ctx: RequestContext, budgets: readonly (Exhaustion | undefined)[] = []): Candidate[] => {
      const ready: Candidate[] = [];
      const paced: Candidate[] = [];
      const removed: Removal[] = [];
      candidates.forEach((candidate, i) => {
        const state = states[i];
        const budget = budgets[i];
        if (blocks(state)) removed.push({ candidate, state });
        else if (budget) removed.push({ candidate, budget });
        else (state ? paced : ready).push(candidate);
      });
      if (ready.length + paced.length === 0 && removed.length > 0) throw noneLeft(ctx, removed, clock.now());
      // Paced keys still serve, after the ones with room left.
      return paced.length === 0 ? ready : [...ready, ...paced];
    };
    const blocks = (state: KeyState | undefined): state is KeyState => state !== undefined && (state.condition !== 'paced' || holdPaced);
    const withBudgets = async (candidates: Candidate[], states: readonly (KeyState | undefined)[], ctx: RequestContext): Promise<Candidate[]> => {
      const memo = new Map<string, Promise<Exhaustion | undefined>>();
      const requestLimit = await book.exhausted(book.requestBudgets(ctx), memo);
      if (requestLimit) throw noneLeft(ctx, candidates.map((candidate) => ({ candidate, budget: requestLimit })), clock.now());
      // The request's token bound: a candidate whose own tpm budget cannot take it is passed over (each attempt holds it when it starts).
      const tokens = book.hasTokenLimits ? reservationTokens(candidates, ctx.request, options.tokenBound) : 0;
      const budgets: (Exhaustion | undefined)[] = [];
      for (const [i, candidate] of candidates.entries()) budgets.push(blocks(states[i]) ? undefined : await book.exhausted(book.candidateBudgets(candidate), memo, tokens));
      const kept = order(candidates, states, ctx, budgets);
      if (tokens > 0) {
        const held = await book.hold(book.requestBudgets(ctx), tokens);
        if (!('counters' in held)) throw noneLeft(ctx, candidates.map((candidate) => ({ candidate, budget: held })), clock.now());
        ctx.state.quotaHolds = { tokens, request: held, attempts: new Map() };
      }
      return kept;
    };
    // Without budgets, and on a store in this process, answered in the same tick (no promise per request).
    tapMaybeAsync(pipeline.hooks.route, { name: PLUGIN_NAME, stage: STAGE.FILTER }, (candidates: Candidate[], _classification: Classification, ctx: RequestContext) => {
      const states = keys.statesOf(candidates);
      if (book.size > 0) return states instanceof Promise ? states.then((s) => withBudgets(candidates, s, ctx)) : withBudgets(candidates, states, ctx);
      return states instanceof Promise ? states.then((s) => order(candidates, s, ctx)) : order(candidates, states, ctx);
    });

    if (book.hasTokenLimits) {
      // Each attempt holds the request's token bound on its endpoint's and key's tpm budgets before it is sent; one that does not fit is not started.
      tapEveryCall(pipeline, (hook) =>
        hook.tapPromise({ name: PLUGIN_NAME, stage: STAGE.DEFAULT - 1 }, async (attempt, ctx) => {
          const holds = ctx.state.quotaHolds;
          if (!holds) return undefined;
          const held = await book.hold(book.candidateBudgets(attempt.candidate), holds.tokens);
          if (!('counters' in held)) throw noneLeft(ctx, [{ candidate: attempt.candidate, budget: held }], clock.now());
          if (held.tokens > 0) holds.attempts.set(attempt.number, held);
          return undefined;
        }),
      );
      pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (_outcome, ctx) => {
        const holds = ctx.state.quotaHolds;
        if (!holds) return;
        const left = [...holds.attempts.values()];
        holds.attempts.clear();
        if (holds.request) left.push(holds.request);
        holds.request = undefined;
        await Promise.all(left.map((h) => book.release(h))).catch(onLedgerError);
      });
    }

    // Fail closed: a charge that cannot be made refuses the request instead of letting it through free.
    // Answered at once when nothing is left to await (no budget to spend, no key to rest, no pace to keep).
    tapMaybeAsync(pipeline.hooks.recordAttempt, failClosed({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }), (outcome: AttemptOutcome, ctx: RequestContext) => {
      const attemptHold = ctx.state.quotaHolds?.attempts.get(outcome.attempt);
      if (!attemptHold) return account(outcome, ctx);
      // What the attempt used is spent below; its hold goes back first.
      ctx.state.quotaHolds!.attempts.delete(outcome.attempt);
      return book.release(attemptHold).then(() => account(outcome, ctx));
    });

    /** Bills an attempt and reports it; spends budgets, rests or parks its key and paces it where that applies. */
    function account(outcome: AttemptOutcome, ctx: RequestContext): void | Promise<void> {
      const { candidate } = outcome;
      // An attempt refused before it left (a request the codec could not build) cost nothing.
      const counted = outcome.outcome !== 'ignored' && !isUnsentFailure(outcome.error);
      const price = priceFor(candidate, options.prices);
      const bill = billAttempt(outcome, { estimatedInputTokens: ctx.classification.estimatedInputTokens, price, outputTokensPerSecond: outputSpeedFor(candidate, options.estimates), request: ctx.request as ChatRequest });
      if (!counted && !bill.charged) return;
      const { tokens, costUsd } = bill;
      if (bill.charged && pipeline.events.listenerCount('usage:billed') > 0) {
        pipeline.events.emit('usage:billed', { requestId: ctx.id, attempt: outcome.attempt, candidate: candidateRef(candidate), costUsd, estimated: bill.estimated, inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens, cachedTokens: tokens.cachedTokens });
      }
      const tags = ctx.request.switchyard?.tags ?? {};
      ledger.addAttempt({ candidate, model: ctx.model, tags, ok: outcome.ok, counted, tokens, costUsd, priced: price !== undefined });
      if (totals) {
        const record: UsageRecord = { at: isoTime(clock.now()), requestId: ctx.id, attempt: outcome.attempt, model: ctx.model, deployment: candidate.deploymentId, endpoint: candidate.endpoint.name, provider: candidate.provider, key: candidate.keyId, tags, outcome: outcome.outcome, ok: outcome.ok, ...tokens, costUsd, estimated: bill.estimated, estimate: bill.estimate };
        // Who called: the gateway key (a tenant's virtual key) and its team.
        if (ctx.caller) {
          record.gatewayKey = ctx.caller.keyId;
          if (ctx.caller.team !== undefined) record.team = ctx.caller.team;
        }
        log?.append(record);
        // A report, not a charge: the answer does not wait for it (waiting added 7 ms to the ledger's p99 at c = 32); usage reads and the close do.
        void totals.add(record).catch(onLedgerError);
      }
      const pause = counted && options.pacing !== false ? pacingPauseMs(outcome.headers, clock.now(), options.pacing) : undefined;
      if (book.size === 0 && !(counted && outcome.error) && pause === undefined) return;
      return spendAndRotate(outcome, ctx, counted, tokens.inputTokens + tokens.outputTokens, costUsd, pause);
    }

    async function spendAndRotate(outcome: AttemptOutcome, ctx: RequestContext, counted: boolean, usedTokens: number, costUsd: number, pause: number | undefined): Promise<void> {
      const { candidate } = outcome;
      // A cancelled attempt the vendor got (a client that left, a hedge that lost) spends budgets too; it is no request of its own.
      const reached = await book.spend(candidate, ctx, { rpm: counted ? 1 : 0, tpm: usedTokens, spend: costUsd });
      if (reached.length > 0) {
        const spent = new Set(reached.map((r) => r.scope));
        prune(ctx, (c) => book.candidateBudgets(c).some((b) => spent.has(b.id)));
      }
      if (!counted) return;
      await rotate(outcome, ctx);
      if (pause !== undefined) await keys.set('paced', candidate, pause, 'vendor quota headers ran low');
    }

    pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (outcome) => {
      if (outcome.ok && outcome.response?.switchyard?.cached && !outcome.degraded) ledger.addCacheHit();
      if (outcome.ok && outcome.degraded) ledger.addDegraded(outcome.degraded);
    });

    /** 402 / insufficient_quota / a rejected key parks that key everywhere; a 429 rests it here. */
    async function rotate(outcome: AttemptOutcome, ctx: RequestContext): Promise<void> {
      const { candidate, error } = outcome;
      if (!error) return;
      if (outcome.outcome === 'key-failure' || error.vendorCode === 'insufficient_quota') {
        const why = error.vendorCode === 'insufficient_quota' || error.kind === 'payment' ? 'out of balance' : 'key rejected';
        await keys.set('parked', candidate, options.keyParkMs, `${why} (${error.status ?? error.kind})`);
        prune(ctx, (c) => KeyStates.sameKey(c, candidate));
      } else if (outcome.outcome === 'rate-limited') {
        const ms = Math.min(error.retryAfterMs ?? options.rateLimitRestMs, options.maxRestMs);
        await keys.set('resting', candidate, ms, `rate-limited (${error.status ?? 429})`);
        prune(ctx, (c) => c.id === candidate.id);
      }
    }
  },
});

function prune(ctx: RequestContext, drop: (c: Candidate) => boolean): void {
  const kept = ctx.remaining.filter((c) => !drop(c));
  if (kept.length !== ctx.remaining.length) ctx.remaining.splice(0, ctx.remaining.length, ...kept);
}

/** The request cannot be served within its limits: say which limit or key state stopped each candidate. */
function noneLeft(ctx: RequestContext, removed: Removal[], now: number): SwitchyardError {
  const reasons = new Map<string, string>();
  let until = Number.POSITIVE_INFINITY;
  for (const r of removed) {
    if (r.budget) {
      reasons.set(`budget:${r.budget.scope}:${r.budget.limit}`, describeExhaustion(r.budget, now));
      until = Math.min(until, r.budget.resetsAt);
    } else if (r.state) {
      reasons.set(`key:${r.candidate.id}:${r.state.condition}`, `${r.candidate.id} (key ${r.candidate.keyId}) ${r.state.condition}: ${r.state.reason}, ${formatDuration(r.state.until - now)} left`);
      until = Math.min(until, r.state.until);
    }
  }
  const retryAfterMs = Number.isFinite(until) ? Math.max(0, until - now) : undefined;
  const detail = [...reasons.values()].join('; ');
  if (removed.some((r) => r.budget)) {
    return new SwitchyardError('budget-exhausted', `budget exhausted for model "${ctx.model}": no candidate is within its limits: ${detail}`, { status: 429, retryAfterMs, retryable: false });
  }
  if (removed.every((r) => r.state?.condition === 'parked')) {
    return new SwitchyardError('payment', `every key for model "${ctx.model}" is parked: ${detail}`, { status: 402, retryAfterMs, retryable: false });
  }
  return new SwitchyardError('rate-limit', `every key for model "${ctx.model}" is resting or paced: ${detail}`, { status: 429, retryAfterMs, retryable: false });
}

export default quota;
