/** @switchyard/plugin-circuit-breaker: per-deployment (and per-key) breakers in the StateStore. */
import { defineService, definePlugin, provideService, requireService, STAGE, type AttemptOutcome, type Candidate, type Pipeline, type RequestContext } from '@switchyard/core';
import { tapMaybeAsync } from '@switchyard/core/internal';
import { BreakerStore, type BreakerState, type Verdict } from './breaker-store.js';
import { announceTransitions } from './transitions.js';
import { breakerOptionsSchema, type BreakerPluginOptions, type BreakerPluginOptionsInput } from './options.js';
import { forceClose, forceOpen, recordFailure, recordSuccess } from './state-machine.js';

export const PLUGIN_NAME = '@switchyard/plugin-circuit-breaker';

/** What the breaker did for one request (`ctx.state.circuitBreaker`). */
export interface BreakerRequestState {
  /** Breakers whose half-open probe lease this request holds. */
  probes: string[];
  /** Candidates dropped because their breaker was open (or another request held the probe). */
  skipped: string[];
}

declare module '@switchyard/core' {
  interface RequestState {
    circuitBreaker?: BreakerRequestState;
  }
}

/**
 * Read and steer the breakers of a pipeline. Ids are candidate ids: `endpoint/model`, plus
 * `#index` for each key of an endpoint with several keys.
 */
export interface BreakerControl {
  readonly options: BreakerPluginOptions;
  getState(id: string): Promise<BreakerState>;
  /** Opens a breaker for `ms`, or until forceClose() when no time is given. */
  forceOpen(id: string, ms?: number): Promise<void>;
  forceClose(id: string): Promise<void>;
}

const BREAKER_CONTROL = defineService<BreakerControl>('switchyard.breaker-control', { providedBy: PLUGIN_NAME });

/** The breaker controls of `pipeline`; throws a coded error when the plugin is not applied. */
export function getBreaker(pipeline: Pipeline): BreakerControl {
  return requireService(pipeline, BREAKER_CONTROL);
}

function requestState(ctx: RequestContext): BreakerRequestState {
  return (ctx.state.circuitBreaker ??= { probes: [], skipped: [] });
}

/** Only endpoint failures count against a breaker; 429s, key and request failures and cancellations never do. */
const counts = (outcome: AttemptOutcome) => outcome.ok || outcome.outcome === 'endpoint-failure';

export const circuitBreaker = definePlugin<BreakerPluginOptions, BreakerPluginOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: breakerOptionsSchema,
  apply(pipeline, options) {
    const breakers = new BreakerStore(pipeline.store, pipeline.clock, pipeline.random, announceTransitions(pipeline), options);
    provideService(pipeline, BREAKER_CONTROL, {
      options,
      getState: (id) => breakers.state(id),
      forceOpen: async (id, ms = Number.POSITIVE_INFINITY) => {
        await breakers.update(id, (record, now) => forceOpen(record, now, ms));
      },
      forceClose: async (id) => {
        await breakers.update(id, (record) => forceClose(record));
      },
    });

    /**
     * Keeps the candidates this request may send to; takes the probe lease of half-open ones.
     * Synchronous on the healthy path with an in-process store: no promise per request.
     */
    function admitted(candidates: Candidate[], ctx: RequestContext): Candidate[] | Promise<Candidate[]> {
      const verdicts = breakers.admitEach(candidates.map((c) => c.id), ctx.id);
      return Array.isArray(verdicts) ? keepAdmitted(candidates, verdicts, ctx) : verdicts.then((v) => keepAdmitted(candidates, v, ctx));
    }

    function keepAdmitted(candidates: Candidate[], verdicts: Verdict[], ctx: RequestContext): Candidate[] {
      // The healthy path: every breaker closed, nothing to copy or record.
      if (verdicts.every((v) => v === 'closed')) return candidates;
      const state = requestState(ctx);
      return candidates.filter((c, i) => {
        if (verdicts[i] === 'probe' && !state.probes.includes(c.id)) state.probes.push(c.id);
        if (!verdicts[i]) state.skipped.push(c.id);
        return verdicts[i] !== false;
      });
    }

    tapMaybeAsync(pipeline.hooks.route, { name: PLUGIN_NAME, stage: STAGE.FILTER }, (candidates, _classification, ctx) => admitted(candidates, ctx));

    tapMaybeAsync(pipeline.hooks.recordAttempt, { name: PLUGIN_NAME }, (outcome, ctx) => {
      const id = outcome.candidate.id;
      const recorded = outcome.ok
        ? breakers.recordSuccess(id, (record, now) => recordSuccess(record, now, options), outcome.endedAt)
        : counts(outcome)
          ? breakers.update(id, (record, now, random) => recordFailure(record, now, options, random)).then(() => undefined)
          : undefined;
      // Whatever the probe's answer, its lease is done: a 429 or a cancelled probe leaves the breaker half-open.
      const state = ctx.state.circuitBreaker;
      if (!state?.probes.includes(id)) return recorded;
      return Promise.resolve(recorded).then(() => {
        state.probes = state.probes.filter((p) => p !== id);
        return breakers.releaseProbe(id, ctx.id);
      });
    });

    // Before the retry policy: never retry on a candidate whose breaker is open.
    pipeline.hooks.retry.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FILTER }, async (outcome) => {
      if (outcome.outcome !== 'endpoint-failure' && outcome.outcome !== 'rate-limited') return undefined;
      if ((await breakers.phase(outcome.candidate.id)) === 'open') return { action: 'next', reason: `circuit open for ${outcome.candidate.id}` };
      return undefined;
    });

    // Never fail over to a candidate whose breaker is open.
    tapMaybeAsync(pipeline.hooks.failover, { name: PLUGIN_NAME, stage: STAGE.FILTER }, (remaining, _failed, ctx) => admitted(remaining, ctx));

    tapMaybeAsync(pipeline.hooks.recordRequest, { name: PLUGIN_NAME }, (_outcome, ctx) => {
      const state = ctx.state.circuitBreaker;
      if (!state || state.probes.length === 0) return;
      // Probes this request was granted but never sent: let another request probe now.
      return Promise.all(state.probes.map((id) => breakers.releaseProbe(id, ctx.id))).then(() => {
        state.probes = [];
      });
    });
  },
});
