/**
 * Hedged attempts: when the primary has not answered (committed, for a stream) after a delay,
 * start the next candidate too; the first acceptable answer wins and the loser is aborted.
 * Racing the last tier is the same pair with no delay: the last-resort tier's two best
 * candidates at once. Only before the commit point, and every second attempt spends the retry
 * budget.
 */
import { SERVICE, type RaceSkipped } from '@switchyard/contracts';
import { candidateRef, getService, sleep, SwitchyardError, type Attempt, type AttemptResult, type Candidate, type RequestContext } from '@switchyard/core';
import type { HedgeDelayOptions } from './options.js';
import type { LatencySamples } from './latency-samples.js';

export function hedgeDelay(options: HedgeDelayOptions, tracker: LatencySamples, deploymentId: string): number {
  if (options.delayMs !== 'p95') return options.delayMs;
  if (tracker.count(deploymentId) < options.minSamples) return options.fallbackDelayMs;
  const p95 = tracker.quantile(deploymentId, 0.95)!;
  return Math.min(options.maxDelayMs, Math.max(options.minDelayMs, p95));
}

type Settled = { ok: true; result: AttemptResult } | { ok: false; error: unknown };

function settle(promise: Promise<AttemptResult>): Promise<Settled> {
  return promise.then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Closes an answer nobody will read (a loser that also succeeded). */
async function discard(result: AttemptResult): Promise<void> {
  if (result.type === 'stream') await result.rest.return?.(undefined);
}

export async function runHedged(attempt: Attempt, ctx: RequestContext, delayMs: number, pluginName: string): Promise<AttemptResult | undefined> {
  const backup = ctx.remaining[0];
  if (!backup || delayMs >= ctx.timeLeft()) return undefined;
  return runPair(attempt, ctx, backup, { delayMs, pluginName, reason: 'hedge' });
}

/** Where a candidate stands in its model's last-resort tier (the highest priority number). */
interface LastTierPlace {
  /** The model has several tiers and the candidate is in the last one. */
  inLastTier: boolean;
  /** The tier has another deployment (tried or not). */
  others: boolean;
  /** The next remaining candidate of the tier on another deployment. */
  partner?: Candidate;
}

function lastTierPlace(candidate: Candidate, ctx: RequestContext): LastTierPlace {
  let lowest = Infinity;
  let highest = -Infinity;
  const all = ctx.pipeline.candidatesFor(ctx.model);
  for (const c of all) {
    if (c.priority < lowest) lowest = c.priority;
    if (c.priority > highest) highest = c.priority;
  }
  if (lowest === highest || candidate.priority !== highest) return { inLastTier: false, others: false };
  const elsewhere = (c: Candidate) => c.priority === highest && c.deploymentId !== candidate.deploymentId;
  return { inLastTier: true, others: all.some(elsewhere), partner: ctx.remaining.find(elsewhere) };
}

/**
 * The partner of an attempt in the model's last-resort tier: the next remaining candidate of
 * that tier on another deployment. None when the model has a single tier (nothing there is a
 * last resort) or the attempt is not in the last tier.
 */
export function lastTierPartner(candidate: Candidate, ctx: RequestContext): Candidate | undefined {
  return lastTierPlace(candidate, ctx).partner;
}

/**
 * Races the attempt's candidate and its last-tier partner from the start; undefined when there
 * is no partner or no budget. A race the last tier could have run and did not says why
 * (`race:skipped`): a skip is otherwise invisible.
 */
export async function raceLastTier(attempt: Attempt, ctx: RequestContext, pluginName: string): Promise<AttemptResult | undefined> {
  const place = lastTierPlace(attempt.candidate, ctx);
  if (!place.inLastTier) return undefined;
  const skipped = (reason: RaceSkipped['reason'], partner?: Candidate) => {
    ctx.pipeline.events.emit('race:skipped', { requestId: ctx.id, candidate: candidateRef(attempt.candidate), reason, ...(partner ? { partner: candidateRef(partner) } : {}), ...(ctx.classification.tier === undefined ? {} : { tier: ctx.classification.tier }) });
    return undefined;
  };
  const { partner } = place;
  if (!partner) return skipped(place.others ? 'partner-unavailable' : 'single-deployment');
  const budget = getService(ctx.pipeline, SERVICE.retryBudget);
  if (budget && !(await budget.tryWithdraw(partner.deploymentId))) return skipped('retry-budget', partner);
  return runPair(attempt, ctx, partner, { delayMs: 0, pluginName, reason: 'race-last-tier' });
}

interface PairOptions {
  /** How long the primary runs alone first; 0 starts both at once. */
  delayMs: number;
  pluginName: string;
  /** The `retry` event's reason for the second attempt. */
  reason: string;
}

/**
 * The primary, then (after `delayMs`, if it has not answered) the backup; the first acceptable
 * answer wins and the other is aborted. The backup spends the retry budget (a race's before it
 * starts, in raceLastTier; a hedge's once its delay passed): without budget, the primary runs alone.
 */
async function runPair(attempt: Attempt, ctx: RequestContext, backup: Candidate, options: PairOptions): Promise<AttemptResult | undefined> {
  const budget = getService(ctx.pipeline, SERVICE.retryBudget);
  const primaryAbort = new AbortController();
  const forward = () => primaryAbort.abort(attempt.signal.reason);
  attempt.signal.addEventListener('abort', forward, { once: true });
  try {
    const primary = settle(ctx.runAttempt(attempt.candidate, { signal: primaryAbort.signal, initiator: options.pluginName }));
    if (options.delayMs > 0) {
      const timer = new AbortController();
      const first = await Promise.race([primary, sleep(ctx.clock, options.delayMs, timer.signal).then(() => undefined, () => undefined)]);
      timer.abort();
      if (first) return unwrap(first);
      if (budget && !(await budget.tryWithdraw(backup.deploymentId))) return unwrap(await primary);
    }
    const index = ctx.remaining.indexOf(backup);
    if (index >= 0) ctx.remaining.splice(index, 1);
    const hedgeAbort = new AbortController();
    const hedge = settle(ctx.runAttempt(backup, { signal: hedgeAbort.signal, initiator: options.pluginName }));
    ctx.pipeline.events.emit('retry', { requestId: ctx.id, attempt: attempt.number, candidate: candidateRef(backup), delayMs: options.delayMs, reason: options.reason });

    const contenders = [
      { settled: primary, abort: primaryAbort },
      { settled: hedge, abort: hedgeAbort },
    ];
    const tagged = contenders.map((c, i) => c.settled.then((s) => ({ s, i })));
    const winner = await Promise.race(tagged);
    const other = contenders[1 - winner.i];
    if (winner.s.ok) {
      other.abort.abort(new SwitchyardError('cancelled', `lost the ${options.reason === 'hedge' ? 'hedge' : 'last-tier'} race`));
      void other.settled.then((s) => (s.ok ? discard(s.result) : undefined));
      return winner.s.result;
    }
    // The first to finish failed: the other one is the answer (or the failure).
    return unwrap(await other.settled);
  } finally {
    attempt.signal.removeEventListener('abort', forward);
  }
}

function unwrap(settled: Settled): AttemptResult {
  if (settled.ok) return settled.result;
  throw settled.error;
}
