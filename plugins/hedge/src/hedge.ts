/**
 * Hedged attempts: when the primary has not answered (committed, for a stream) after a delay,
 * start the next candidate too; the first acceptable answer wins and the loser is aborted.
 * Only before the commit point, and every hedge spends the retry budget.
 */
import { getService, SERVICE, sleep, SwitchyardError, type Attempt, type AttemptResult, type RequestContext } from '@switchyard/core';
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

  const primaryAbort = new AbortController();
  const forward = () => primaryAbort.abort(attempt.signal.reason);
  attempt.signal.addEventListener('abort', forward, { once: true });
  try {
    const primary = settle(ctx.runAttempt(attempt.candidate, { signal: primaryAbort.signal, initiator: pluginName }));
    const timer = new AbortController();
    const first = await Promise.race([primary, sleep(ctx.clock, delayMs, timer.signal).then(() => undefined, () => undefined)]);
    timer.abort();
    if (first) return unwrap(first);

    const budget = getService(ctx.pipeline, SERVICE.retryBudget);
    if (budget && !(await budget.tryWithdraw(backup.deploymentId))) return unwrap(await primary);
    ctx.remaining.shift();
    const hedgeAbort = new AbortController();
    const hedge = settle(ctx.runAttempt(backup, { signal: hedgeAbort.signal, initiator: pluginName }));
    ctx.pipeline.events.emit('retry', { requestId: ctx.id, attempt: attempt.number, candidate: backup, delayMs, reason: 'hedge' });

    const contenders = [
      { settled: primary, abort: primaryAbort },
      { settled: hedge, abort: hedgeAbort },
    ];
    const tagged = contenders.map((c, i) => c.settled.then((s) => ({ s, i })));
    const winner = await Promise.race(tagged);
    const other = contenders[1 - winner.i];
    if (winner.s.ok) {
      other.abort.abort(new SwitchyardError('cancelled', 'lost the hedge race'));
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
