/**
 * The retry decision for one failed attempt, per outcome class (DESIGN.md): what to cool down,
 * whether to wait on the same candidate, and when to move on. The core still enforces the
 * deadline and never retries a silent endpoint; this policy stays inside those rules too.
 */
import { outcomeOf, type AttemptOutcome, type Candidate, type Pipeline, type RequestContext, type RetryDecision, type SwitchyardError } from '@switchyard/core';
import { isSilentEndpoint, retryAfterVerdict } from '@switchyard/core/internal';
import { computeBackoff } from './backoff.js';
import { Cooldowns, keyScope, type Cooldown } from './cooldowns.js';
import type { RetryOptions } from './options.js';
import { retryDelayFromError } from './retry-after.js';
import { RetryBudget } from './retry-budget.js';

/** What the retry plugin did for one request, for observability (`ctx.state.retry`). */
export interface RetryRequestState {
  /** The candidate whose next attempt is a retry this plugin asked for. */
  retrying?: string;
  /** The previous backoff per candidate id (decorrelated jitter walks from it). */
  lastDelayMs: Record<string, number>;
  /** Cooldowns this request set. */
  cooldowns: ({ scope: string } & Cooldown)[];
  /** Candidates the route stage (or a failover) skipped because they were cooling. */
  skipped: { candidate: string; until: number; reason: string }[];
  /** Time the request waited in the route stage for the soonest cooldown to end. */
  waitedMs?: number;
  decisions: { attempt: number; candidate: string; action: RetryDecision['action']; delayMs?: number; reason: string }[];
}

declare module '@switchyard/core' {
  interface RequestState {
    retry?: RetryRequestState;
  }
}

export function retryState(ctx: RequestContext): RetryRequestState {
  return (ctx.state.retry ??= { lastDelayMs: {}, cooldowns: [], skipped: [], decisions: [] });
}

/** The class this policy treats an error as: a 429 for an exhausted quota is the key's fault. */
export function retryClass(error: SwitchyardError): ReturnType<typeof outcomeOf> {
  const cls = outcomeOf(error);
  if (cls === 'rate-limited' && error.vendorCode === 'insufficient_quota') return 'key-failure';
  return cls;
}

export class RetryPolicy {
  readonly cooldowns: Cooldowns;
  readonly budget: RetryBudget;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly options: RetryOptions,
  ) {
    this.cooldowns = new Cooldowns(pipeline.store, pipeline.clock);
    this.budget = new RetryBudget(pipeline.store, pipeline.clock, options.budget, (error) => pipeline.events.emit('plugin-error', { plugin: '@switchyard/plugin-retry', stage: 'retry-budget', error }));
  }

  async decide(outcome: AttemptOutcome, ctx: RequestContext): Promise<RetryDecision | undefined> {
    const error = outcome.error;
    if (!error) return undefined;
    const decision = await this.decideFor(error, outcome.candidate, ctx);
    if (!decision) return undefined;
    const state = retryState(ctx);
    state.decisions.push({ attempt: outcome.attempt, candidate: outcome.candidate.id, action: decision.action, delayMs: decision.action === 'retry' ? decision.delayMs : undefined, reason: decision.reason ?? error.kind });
    if (decision.action === 'retry') state.retrying = (decision.candidate ?? outcome.candidate).id;
    return decision;
  }

  private async decideFor(error: SwitchyardError, candidate: Candidate, ctx: RequestContext): Promise<RetryDecision | undefined> {
    const now = this.pipeline.clock.now();
    switch (retryClass(error)) {
      case 'request-failure':
        // It would fail the same way anywhere: the vendor's reason goes to the caller.
        return { action: 'fail', reason: `request rejected (${error.kind})` };
      case 'key-failure':
        await this.coolDown(ctx, keyScope(candidate), await this.keyCooldownMs(keyScope(candidate)), `key-failure: ${error.kind}`);
        return { action: 'next', reason: `key failure (${error.kind}): never retried on the same key` };
      case 'misconfigured': {
        const cooldown = await this.coolDown(ctx, candidate.deploymentId, this.options.misconfiguredCooldownMs, 'misconfigured');
        if (cooldown.fresh) this.pipeline.events.emit('deployment:misconfigured', { deployment: candidate.deploymentId, error });
        return { action: 'next', reason: 'deployment misconfigured (not found)' };
      }
      case 'rate-limited':
        return this.afterRateLimit(error, candidate, ctx, now);
      case 'endpoint-failure':
        return this.afterEndpointFailure(error, candidate, ctx, now);
      default:
        return undefined;
    }
  }

  private async afterRateLimit(error: SwitchyardError, candidate: Candidate, ctx: RequestContext, now: number): Promise<RetryDecision> {
    const asked = retryDelayFromError(error, now);
    const wait = asked ?? this.options.rateLimitCooldownMs;
    const cooldown = await this.coolDown(ctx, candidate.id, Math.min(wait, this.options.maxCooldownMs), asked === undefined ? 'rate-limited' : `rate-limited: retry after ${Math.round(asked)} ms`);
    // Should the request fail, the client is told when the soonest of its candidates is back, this one included.
    ctx.holds.push({ candidate: candidate.id, until: cooldown.until, rateLimited: true });
    if (retryAfterVerdict(wait, { maxWaitMs: this.options.maxRetryAfterWaitMs }).action === 'move-on') return { action: 'next', reason: `rate-limited for ${Math.round(wait)} ms: not soon, failing over` };
    // Never sooner than the vendor asked; a little later, spread so waiting clients do not return together.
    const delay = wait * (1 + this.options.retryAfterJitter * this.random());
    return this.retrySame(candidate, ctx, delay, 'rate-limited');
  }

  private async afterEndpointFailure(error: SwitchyardError, candidate: Candidate, ctx: RequestContext, now: number): Promise<RetryDecision> {
    if (isSilentEndpoint(error)) return { action: 'next', reason: `${error.kind}: a silent endpoint is not retried` };
    if (error.retryable === false) return { action: 'next', reason: `${error.kind}: the vendor said not to retry` };
    const asked = retryDelayFromError(error, now);
    if (asked !== undefined) {
      await this.coolDown(ctx, candidate.id, Math.min(asked, this.options.maxCooldownMs), `${error.kind}: retry after ${Math.round(asked)} ms`);
      if (retryAfterVerdict(asked, { maxWaitMs: this.options.maxRetryAfterWaitMs }).action === 'move-on') return { action: 'next', reason: `${error.kind}: retry after ${Math.round(asked)} ms is not soon` };
    }
    const state = retryState(ctx);
    const retryNumber = this.attemptsOn(candidate, ctx);
    const backoff = computeBackoff(retryNumber, this.options.backoff, () => this.random(), state.lastDelayMs[candidate.id]);
    const delay = Math.max(backoff, asked ?? 0);
    state.lastDelayMs[candidate.id] = backoff;
    return this.retrySame(candidate, ctx, delay, error.kind);
  }

  /** Retry on the same candidate if attempts, the deadline and the retry budget all allow it. */
  private async retrySame(candidate: Candidate, ctx: RequestContext, delayMs: number, reason: string): Promise<RetryDecision> {
    if (this.attemptsOn(candidate, ctx) >= this.options.maxAttemptsPerCandidate) return { action: 'next', reason: `${reason}: ${this.options.maxAttemptsPerCandidate} attempt(s) on ${candidate.id} used` };
    if (retryAfterVerdict(delayMs, { timeLeftMs: ctx.timeLeft(), minAttemptMs: this.options.minAttemptMs }).action === 'move-on') return { action: 'next', reason: `${reason}: a retry in ${Math.round(delayMs)} ms would not finish before the deadline` };
    if (!(await this.budget.tryWithdraw(candidate.deploymentId))) return { action: 'next', reason: `${reason}: retry budget of ${candidate.deploymentId} exhausted` };
    return { action: 'retry', delayMs, reason };
  }

  /**
   * A key that keeps failing (out of balance, revoked) rests longer each time: 60 s, 2 min,
   * 4 min… up to maxKeyFailureCooldownMs. Strikes are forgotten after two maximum cooldowns
   * without a new key failure.
   */
  private async keyCooldownMs(scope: string): Promise<number> {
    const { keyFailureCooldownMs: base, maxKeyFailureCooldownMs: max } = this.options;
    const strikes = await this.pipeline.store.increment(`switchyard:retry:key-strikes:${scope}`, 1, 2 * max);
    return Math.min(max, base * 2 ** Math.min(30, strikes - 1));
  }

  private attemptsOn(candidate: Candidate, ctx: RequestContext): number {
    let n = 0;
    for (const a of ctx.attempts) if (a.candidate.id === candidate.id) n++;
    return n;
  }

  private async coolDown(ctx: RequestContext, scope: string, ms: number, reason: string): Promise<Cooldown & { fresh: boolean }> {
    const before = await this.cooldowns.get(scope);
    const cooldown = await this.cooldowns.set(scope, ms, reason);
    if (cooldown !== before) retryState(ctx).cooldowns.push({ scope, ...cooldown });
    return { ...cooldown, fresh: before === undefined };
  }

  /** Failover tap. No ping-pong: a failover never lands on a candidate that is cooling down right now. */
  async dropCooling(remaining: Candidate[], ctx: RequestContext): Promise<Candidate[]> {
    if (remaining.length === 0) return remaining;
    const cooling = await this.cooldowns.ofEach(remaining);
    recordSkipped(ctx, remaining, cooling);
    return remaining.filter((_, i) => !cooling[i]);
  }

  private random(): number {
    return this.pipeline.random();
  }
}

/** Candidates skipped for their cooldowns: in the request's retry state, and in the core's holds (with none left, the client is told when the first is back: a 429 when all are rate-limited). */
export function recordSkipped(ctx: RequestContext, candidates: Candidate[], cooling: (Cooldown | undefined)[]): void {
  const skipped = retryState(ctx).skipped;
  cooling.forEach((c, i) => {
    if (!c) return;
    skipped.push({ candidate: candidates[i].id, until: c.until, reason: c.reason });
    ctx.holds.push({ candidate: candidates[i].id, until: c.until, rateLimited: c.reason.startsWith('rate-limited') });
  });
}
