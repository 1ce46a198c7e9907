/**
 * The quota plugin: usage and cost accounting, budgets that filter candidates before a call,
 * key rotation on 429 / 402, and pacing from the vendors' remaining-quota headers.
 *
 * Taps: route at STAGE.FILTER (drops keys that are parked, resting, held or over budget),
 * recordAttempt at STAGE.DEFAULT (spends budgets, bills usage, rests or parks keys, paces),
 * recordRequest (cache hits and degraded answers for the report).
 */
import { definePlugin, failClosed, isUnsentFailure, SwitchyardError, STAGE, type AttemptOutcome, type Candidate, type Pipeline, type RequestContext } from '@switchyard/core';
import { BudgetBook, describeExhaustion, formatDuration, type Exhaustion } from './budgets.js';
import { KeyStates, type KeyState } from './key-states.js';
import { UsageLedger, type UsageReport } from './ledger.js';
import { PLUGIN_NAME } from './name.js';
import { quotaOptionsSchema, type QuotaOptions, type QuotaOptionsInput } from './options.js';
import { pacingPauseMs } from './pacing.js';
import { costOf, priceFor, tokensOf } from './prices.js';
import { checkBudgetsAgainst } from './validate.js';

const ledgers = new WeakMap<Pipeline, UsageLedger>();

/** The usage report of a pipeline the quota plugin is applied to. */
export function getUsage(pipeline: Pipeline): UsageReport {
  const ledger = ledgers.get(pipeline);
  if (!ledger) throw new SwitchyardError('plugin', `${PLUGIN_NAME} is not applied to this pipeline`, { code: 'SWITCHYARD_ERR_PLUGIN' });
  return ledger.report(pipeline.clock.now());
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
    const { clock } = pipeline;
    const ledger = new UsageLedger(clock.now(), options.maxReportedTags);
    ledgers.set(pipeline, ledger);
    const book = new BudgetBook(options.budgets, pipeline, options.storePrefix, options.thresholds);
    const keys = new KeyStates(pipeline, options.storePrefix);
    const holdPaced = options.pacing !== false && options.pacing.mode === 'hold';

    pipeline.hooks.route.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FILTER }, async (candidates, _classification, ctx) => {
      const memo = new Map<string, Promise<Exhaustion | undefined>>();
      const requestLimit = await book.exhausted(book.requestBudgets(ctx), memo);
      if (requestLimit) throw noneLeft(ctx, candidates.map((candidate) => ({ candidate, budget: requestLimit })), clock.now());
      const ready: Candidate[] = [];
      const paced: Candidate[] = [];
      const removed: Removal[] = [];
      for (const candidate of candidates) {
        const state = await keys.get(candidate);
        if (state && (state.condition !== 'paced' || holdPaced)) {
          removed.push({ candidate, state });
          continue;
        }
        const budget = await book.exhausted(book.candidateBudgets(candidate), memo);
        if (budget) removed.push({ candidate, budget });
        else (state ? paced : ready).push(candidate);
      }
      if (ready.length + paced.length === 0 && removed.length > 0) throw noneLeft(ctx, removed, clock.now());
      // Paced keys still serve, after the ones with room left.
      return [...ready, ...paced];
    });

    // Fail closed: a charge that cannot be made refuses the request instead of letting it through free.
    pipeline.hooks.recordAttempt.tapPromise(failClosed({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }), async (outcome, ctx) => {
      const { candidate } = outcome;
      // An attempt refused before it left (a request the codec could not build) cost nothing.
      const counted = outcome.outcome !== 'ignored' && !isUnsentFailure(outcome.error);
      if (!counted && !outcome.usage) return;
      const tokens = tokensOf(outcome.usage);
      const price = priceFor(candidate, options.prices);
      const costUsd = costOf(tokens, price);
      const tags = ctx.request.switchyard?.tags ?? {};
      ledger.addAttempt({ candidate, model: ctx.model, tags, ok: outcome.ok, counted, tokens, costUsd, priced: price !== undefined });
      if (!counted) return;
      const reached = await book.spend(candidate, ctx, { rpm: 1, tpm: tokens.inputTokens + tokens.outputTokens, spend: costUsd });
      if (reached.length > 0) {
        const spent = new Set(reached.map((r) => r.scope));
        prune(ctx, (c) => book.candidateBudgets(c).some((b) => spent.has(b.id)));
      }
      await rotate(outcome, ctx);
      if (options.pacing !== false) {
        const pause = pacingPauseMs(outcome.headers, clock.now(), options.pacing);
        if (pause !== undefined) await keys.set('paced', candidate, pause, 'vendor quota headers ran low');
      }
    });

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
