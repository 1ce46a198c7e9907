/**
 * @switchyard/plugin-hedge: hedged requests, mid-stream continuation and the per-tier commit
 * point, per tier. Hedging and racing the last tier are opt-in; continuation is the core's default
 * and a tier may turn it off.
 */
import { definePlugin, STAGE, tapEveryCall } from '@switchyard/core';
import { continueStream, DEFAULT_MAX_CONTINUATIONS } from '@switchyard/core/internal';
import { noContinuation } from './continuation.js';
import { hedgeDelay, raceLastTier, runHedged } from './hedge.js';
import { LatencySamples } from './latency-samples.js';
import { hedgeOptionsSchema, tierOptions, type HedgeOptions, type HedgeOptionsInput } from './options.js';

export const PLUGIN_NAME = '@switchyard/plugin-hedge';

/**
 * @example
 * hedge({ tiers: { interactive: { hedge: { delayMs: 'p95' }, continuation: true },
 *                  batch: { commit: 'end' } } })
 */
export const hedge = definePlugin<HedgeOptions, HedgeOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: hedgeOptionsSchema,
  apply(pipeline, options) {
    const tracker = new LatencySamples();

    pipeline.hooks.classify.tapPromise({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, async (classification) => {
      const tier = tierOptions(options, classification.tier);
      return tier?.commit === 'end' ? { ...classification, commit: 'end' } : classification;
    });

    pipeline.hooks.recordAttempt.tap({ name: PLUGIN_NAME }, (outcome) => {
      if (outcome.ok) tracker.add(outcome.candidate.deploymentId, outcome.stream ? (outcome.ttftMs ?? outcome.latencyMs) : outcome.latencyMs);
    });

    tapEveryCall(pipeline, (hook) =>
      hook.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FIRST }, async (attempt, ctx) => {
        if (attempt.initiator !== 'core') return undefined;
        const tier = tierOptions(options, ctx.classification.tier);
        if (!tier) return undefined;
        const raced = tier.raceLastTier ? await raceLastTier(attempt, ctx, PLUGIN_NAME) : undefined;
        if (raced || tier.hedge === false) return raced;
        return runHedged(attempt, ctx, hedgeDelay(tier.hedge, tracker, attempt.candidate.deploymentId), PLUGIN_NAME);
      }),
    );

    pipeline.hooks.continueStream.tapPromise({ name: PLUGIN_NAME }, async (interruption, ctx) => {
      const tier = tierOptions(options, ctx.classification.tier);
      if (!tier) return undefined;
      if (tier.continuation === false) return noContinuation();
      // Unset with the default count: the core's default continuation applies.
      if (tier.maxContinuations === DEFAULT_MAX_CONTINUATIONS) return undefined;
      return continueStream(interruption, ctx, tier.maxContinuations, PLUGIN_NAME);
    });
  },
});

export { hedgeDelay, lastTierPartner, raceLastTier, runHedged } from './hedge.js';
export { continueStream, continuationCandidates, prefillRequest, noContinuation } from './continuation.js';
export { LatencySamples } from './latency-samples.js';
export { hedgeOptionsSchema, type HedgeOptions, type HedgeOptionsInput, type TierOptions } from './options.js';
export default hedge;
