/** @switchyard/plugin-retry: wires the retry policy into the pipeline's hooks. */
import { SERVICE } from '@switchyard/contracts';
import { defineService, definePlugin, provideService, requireService, sleep, STAGE, type Candidate, type Pipeline, type RequestContext } from '@switchyard/core';
import { retryAfterVerdict, tapMaybeAsync } from '@switchyard/core/internal';
import { retryOptionsSchema, type RetryOptions, type RetryOptionsInput } from './options.js';
import { recordSkipped, RetryPolicy, retryState } from './retry-policy.js';
import type { Cooldown } from './cooldowns.js';
import type { RetryBudgetSnapshot } from './retry-budget.js';

export const PLUGIN_NAME = '@switchyard/plugin-retry';

/** Read and steer the retry plugin of a pipeline (status pages, tests, the hedge plugin). */
export interface RetryControl {
  readonly options: RetryOptions;
  /** The cooldown that applies to a candidate right now, if any. */
  cooldownOf(candidate: Candidate): Promise<Cooldown | undefined>;
  /** Cool a scope (candidate id, deployment id or `key:<endpoint>#<index>`) down for `ms`. */
  setCooldown(scope: string, ms: number, reason?: string): Promise<Cooldown>;
  clearCooldown(scope: string): Promise<void>;
  budget(deploymentId: string): Promise<RetryBudgetSnapshot>;
  /** Spends one retry from a deployment's budget (hedges spend it too); false when exhausted. */
  tryWithdraw(deploymentId: string): Promise<boolean>;
}

const RETRY_CONTROL = defineService<RetryControl>('switchyard.retry-control', { providedBy: PLUGIN_NAME });

/** The retry plugin's controls on `pipeline`; throws a coded error when the plugin is not applied. */
export function getRetryControl(pipeline: Pipeline): RetryControl {
  return requireService(pipeline, RETRY_CONTROL);
}

export const retry = definePlugin<RetryOptions, RetryOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: retryOptionsSchema,
  apply(pipeline, options) {
    const policy = new RetryPolicy(pipeline, options);
    provideService(pipeline, RETRY_CONTROL, {
      options,
      cooldownOf: (candidate) => policy.cooldowns.of(candidate),
      setCooldown: (scope, ms, reason = 'manual') => policy.cooldowns.set(scope, ms, reason),
      clearCooldown: (scope) => policy.cooldowns.clear(scope),
      budget: (id) => policy.budget.snapshot(id),
      tryWithdraw: (id) => policy.budget.tryWithdraw(id),
    });
    // Hedges spend the same budget (plugin-hedge looks it up without importing this package).
    provideService(pipeline, SERVICE.retryBudget, { tryWithdraw: (id) => policy.budget.tryWithdraw(id) });

    tapMaybeAsync(pipeline.hooks.route, { name: PLUGIN_NAME, stage: STAGE.FILTER }, (candidates, _classification, ctx) => skipCooling(policy, options, candidates, ctx));

    // Synchronous: the budget counts requests in memory and writes a bucket's count once.
    pipeline.hooks.recordAttempt.tap({ name: PLUGIN_NAME }, (outcome, ctx) => {
      const state = ctx.state.retry;
      // A retry was paid for when it was granted; every other attempt is a request that earns budget.
      if (state && state.retrying === outcome.candidate.id) state.retrying = undefined;
      else policy.budget.recordRequest(outcome.candidate.deploymentId);
    });

    pipeline.hooks.retry.tapPromise({ name: PLUGIN_NAME }, (outcome, ctx) => policy.decide(outcome, ctx));
    pipeline.hooks.failover.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FILTER }, (remaining, _failed, ctx) => policy.dropCooling(remaining, ctx));
  },
});

/**
 * Route filter: drops cooling candidates. When every candidate is cooling, the request waits
 * for the soonest cooldown to end if that is short and fits the deadline; otherwise no
 * candidate is left and the core fails fast (after the degrade stage). Never hammers.
 */
function skipCooling(policy: RetryPolicy, options: RetryOptions, candidates: Candidate[], ctx: RequestContext): Candidate[] | Promise<Candidate[]> {
  if (candidates.length === 0) return candidates;
  const cooling = policy.cooldowns.ofEach(candidates);
  return Array.isArray(cooling) ? withoutCooling(policy, options, candidates, cooling, ctx) : cooling.then((c) => withoutCooling(policy, options, candidates, c, ctx));
}

function withoutCooling(policy: RetryPolicy, options: RetryOptions, candidates: Candidate[], cooling: (Cooldown | undefined)[], ctx: RequestContext): Candidate[] | Promise<Candidate[]> {
  // The healthy path: nothing cools, nothing to copy or record.
  if (!cooling.some(Boolean)) return candidates;
  const free = candidates.filter((_, i) => !cooling[i]);
  if (free.length > 0) {
    recordSkipped(ctx, candidates, cooling);
    return free;
  }
  const soonest = Math.min(...cooling.map((c) => c!.until));
  const wait = soonest - ctx.clock.now();
  if (retryAfterVerdict(wait, { maxWaitMs: options.maxRetryAfterWaitMs, timeLeftMs: ctx.timeLeft(), minAttemptMs: options.minAttemptMs }).action === 'move-on') {
    recordSkipped(ctx, candidates, cooling);
    return [];
  }
  return waitOutCooldown(policy, candidates, wait, ctx);
}

/** Every candidate cools, but the soonest is back shortly: wait once, then check again. */
async function waitOutCooldown(policy: RetryPolicy, candidates: Candidate[], wait: number, ctx: RequestContext): Promise<Candidate[]> {
  try {
    await sleep(ctx.clock, wait, ctx.signal);
  } catch {
    return [];
  }
  retryState(ctx).waitedMs = wait;
  // Cooldowns may have been extended meanwhile: check again, and wait no more than once.
  const after = await policy.cooldowns.ofEach(candidates);
  recordSkipped(ctx, candidates, after);
  return candidates.filter((_, i) => !after[i]);
}
