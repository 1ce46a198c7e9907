/**
 * The router plugin: capability matching and ordering of the candidates the filters left, by
 * strategy; context-length failures rerouted to a larger window; optional prompt-cache affinity
 * (sticky conversations, sticky.ts) that says when a failover lost a conversation's cache.
 */
import { candidateRef, definePlugin, STAGE, tapEveryCall, type Candidate, type ChatRequest, type Classification, type RequestContext } from '@switchyard/core';
import { withField } from '@switchyard/core/internal';
import { assertServable, fitsContext, hasCapabilities, requiredCapabilities, requiredContextTokens } from './capabilities.js';
import { contextReroute, largerContextFirst } from './context-reroute.js';
import { demotedIds } from './demoted.js';
import { shortenableIds } from './shortenable.js';
import { PeakEwmaTracker } from './peak-ewma-tracker.js';
import { routerOptionsSchema, type RouterOptions, type RouterOptionsInput, type Strategy } from './options.js';
import { Schedule, type ActiveRule } from './schedule.js';
import { conversationOf, type Conversation } from './sticky.js';
import { TrafficShares } from './traffic-shares.js';

/** A request with affinity: its conversation and the deployment that answered its previous turn. */
export interface RouterRequestState {
  conversation: Conversation;
  remembered?: string;
}

declare module '@switchyard/core' {
  interface RequestState {
    router?: RouterRequestState;
  }
}
import { costAware, leastLatency, priorityWeighted, roundRobin } from './strategies.js';

export const PLUGIN_NAME = '@switchyard/plugin-router';

export const router = definePlugin<RouterOptions, RouterOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: routerOptionsSchema,
  apply(pipeline, options) {
    const { clock, random, store } = pipeline;
    const latency = new PeakEwmaTracker({ decayMs: options.latencyDecayMs, defaultRttMs: options.defaultRttMs, failurePenaltyMs: options.failurePenaltyMs });
    const schedule = new Schedule(options.schedule);
    schedule.check(pipeline);

    // Synchronous taps where the work is in memory: no promise per request.
    pipeline.hooks.classify.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (classification, ctx) => {
      if (ctx.kind !== 'chat') return classification;
      const needs = requiredCapabilities(ctx.request as ChatRequest);
      if (needs.length === 0) return classification;
      return withField(classification, 'capabilities', new Set([...classification.capabilities, ...needs]));
    });

    /** Orders the candidates; a promise only when the strategy (round-robin) or stickiness reads the store. */
    const route = (candidates: Candidate[], classification: Classification, ctx: RequestContext): Candidate[] | Promise<Candidate[]> => {
      const eligible = ctx.kind === 'chat' ? matching(candidates, classification, ctx, options) : candidates;
      const demoted = demotedIds(ctx);
      const preferred = demoted.size === 0 ? eligible : eligible.filter((c) => !demoted.has(c.id));
      const lastResort = demoted.size === 0 ? [] : eligible.filter((c) => demoted.has(c.id));
      const rule = schedule.empty ? undefined : schedule.ruleFor(ctx.model, classification.tier, clock.now());
      const ordered = order(rule?.strategy ?? strategyFor(classification, options), preferred, classification, ctx, rule);
      const chosen = rule === undefined ? ordered : Array.isArray(ordered) ? rule.preferred(ordered) : ordered.then((list) => rule.preferred(list));
      if (!Array.isArray(chosen) || options.sticky) return settleLater(chosen, lastResort, ctx);
      countFirst(chosen, ctx);
      return withLastResort(chosen, lastResort);
    };

    async function settleLater(chosen: Candidate[] | Promise<Candidate[]>, lastResort: Candidate[], ctx: RequestContext): Promise<Candidate[]> {
      const ordered = Array.isArray(chosen) ? chosen : await chosen;
      countFirst(ordered, ctx);
      if (!options.sticky) return withLastResort(ordered, lastResort);
      const sticky = await preferSticky(ordered, ctx);
      if (ordered[0] && sticky[0] !== ordered[0]) {
        latency.finished(ordered[0].deploymentId, ctx.id);
        latency.started(sticky[0].deploymentId, ctx.id, clock.now());
      }
      return withLastResort(sticky, lastResort);
    }

    /** The first choice counts as in flight at once, before any await, so concurrent decisions see each other. */
    function countFirst(ordered: Candidate[], ctx: RequestContext): void {
      if (ordered[0]) latency.started(ordered[0].deploymentId, ctx.id, clock.now());
    }

    // Synchronous unless a strategy reads the store: no promise per request for the usual ones.
    const readsStore = options.sticky || [options.strategy, ...Object.values(options.tiers).map((t) => t.strategy), ...options.schedule.map((r) => r.strategy)].includes('round-robin');
    if (readsStore) pipeline.hooks.route.tapPromise({ name: PLUGIN_NAME, stage: STAGE.ORDER }, async (candidates, classification, ctx) => route(candidates, classification, ctx));
    else pipeline.hooks.route.tap({ name: PLUGIN_NAME, stage: STAGE.ORDER }, (candidates, classification, ctx) => route(candidates, classification, ctx) as Candidate[]);

    // Every attempt counts as in flight from its start (hedges and retries too), whatever the provider.
    tapEveryCall(pipeline, (hook) =>
      hook.tap({ name: PLUGIN_NAME, stage: STAGE.FIRST }, (attempt, ctx) => {
        // Since the attempt's start as the core read it on the same clock.
        latency.started(attempt.candidate.deploymentId, ctx.id, attempt.startedAt);
        const remembered = ctx.state.router?.remembered;
        if (remembered !== undefined && remembered !== attempt.candidate.deploymentId) attempt.answerInfo = { ...attempt.answerInfo, cacheLost: remembered };
        return undefined;
      }),
    );
    const traffic = new TrafficShares(pipeline, options.trafficTargets);
    if (traffic.empty) pipeline.hooks.recordRequest.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (_outcome, ctx) => latency.ended(ctx.id));
    else {
      pipeline.hooks.recordRequest.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (outcome, ctx) => {
        latency.ended(ctx.id);
        traffic.record(outcome);
      });
    }

    if (options.sticky) {
      pipeline.hooks.recordAttempt.tapPromise({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, async (outcome, ctx) => {
        latency.record(outcome, ctx.id, outcome.endedAt ?? clock.now());
        const pin = outcome.ok ? ctx.state.router : undefined;
        if (!pin) return;
        const answered = outcome.candidate.deploymentId;
        if (pin.remembered !== undefined && pin.remembered !== answered) {
          pipeline.events.emit('cache:lost', { requestId: ctx.id, model: ctx.model, from: pin.remembered, to: candidateRef(outcome.candidate), caller: ctx.caller?.keyId, source: pin.conversation.source });
        }
        // The pin moves with the answer: the next turn is this deployment's, and says nothing more.
        pin.remembered = answered;
        await store.set(pin.conversation.key, answered, options.stickyTtlMs);
      });
    } else pipeline.hooks.recordAttempt.tap({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, (outcome, ctx) => latency.record(outcome, ctx.id, outcome.endedAt ?? clock.now()));

    // Before retry policies (STAGE.DEFAULT), which would otherwise fail a request failure outright.
    if (options.contextReroute) {
      pipeline.hooks.retry.tapPromise({ name: PLUGIN_NAME, stage: STAGE.FILTER }, async (outcome, ctx) => contextReroute(outcome, ctx));
      pipeline.hooks.failover.tapPromise({ name: PLUGIN_NAME, stage: STAGE.ORDER }, async (remaining, failed, ctx) => largerContextFirst(remaining, failed, ctx));
    }

    function order(strategy: Strategy, list: Candidate[], classification: Classification, ctx: RequestContext, rule: ActiveRule | undefined): Candidate[] | Promise<Candidate[]> {
      switch (strategy) {
        case 'round-robin':
          return roundRobin(list, store, ctx.model);
        case 'least-latency': {
          const now = clock.now();
          return leastLatency(list, (c) => latency.load(c.deploymentId, now), random);
        }
        case 'cost-aware': {
          const request = ctx.request as ChatRequest;
          const tolerance = clamp01(classification.costTolerance ?? request.switchyard?.costTolerance ?? options.costTolerance);
          const outputTokens = request.max_completion_tokens ?? request.max_tokens ?? options.expectedOutputTokens;
          return costAware(list, tolerance, { inputTokens: classification.estimatedInputTokens, outputTokens });
        }
        default:
          return priorityWeighted(list, random, rule?.weightOf);
      }
    }

    /** The remembered deployment goes first when it is still in the first tier (healthy, not filtered). */
    async function preferSticky(ordered: Candidate[], ctx: RequestContext): Promise<Candidate[]> {
      const conversation = conversationOf(ctx, options.stickyPrefix);
      if (!conversation) return ordered;
      const remembered = (await store.get<string>(conversation.key)) ?? undefined;
      ctx.state.router = { conversation, remembered };
      if (!remembered || ordered.length < 2) return ordered;
      const index = ordered.findIndex((c) => c.deploymentId === remembered && c.priority === ordered[0].priority);
      if (index <= 0) return ordered;
      return [ordered[index], ...ordered.slice(0, index), ...ordered.slice(index + 1)];
    }
  },
});

function strategyFor(classification: Classification, options: RouterOptions): Strategy {
  return (classification.tier !== undefined ? options.tiers[classification.tier]?.strategy : undefined) ?? options.strategy;
}

function matching(candidates: Candidate[], classification: Classification, ctx: RequestContext, options: RouterOptions): Candidate[] {
  const needs = [...classification.capabilities];
  const tokens = options.checkContextWindow ? requiredContextTokens(ctx.request as ChatRequest, classification) : undefined;
  // Candidates a filter will shorten the prompt for fit by then (shortenable.ts); it checked they can.
  const shortenable = shortenableIds(ctx);
  assertServable(ctx.model, ctx.pipeline.candidatesFor(ctx.model), needs, shortenable.size > 0 ? undefined : tokens);
  return candidates.filter((c) => hasCapabilities(c, needs) && (tokens === undefined || fitsContext(c, tokens) || shortenable.has(c.id)));
}

function withLastResort(ordered: Candidate[], lastResort: Candidate[]): Candidate[] {
  return lastResort.length === 0 ? ordered : [...ordered, ...lastResort];
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0.5;
}
