/**
 * Service-level objectives that act, not only alert: while "95 % of chat requests succeed over
 * 5 minutes" is missed, the affected requests get the objective's actions (a degrade plan
 * served at once, deployments left out of routing, another tier). A small share of them
 * (`probeShare`) still takes the normal path, and only those are measured while breached: the
 * objective recovers when the most recent probes reach `recoverAt` (above the target:
 * hysteresis) and it has been breached for at least `minBreachMs`.
 *
 * Samples come only from requests the objective did not change, so its own actions never make
 * it look healthy. State lives with the pipeline's StateStore (`storeLocal`): a config reload
 * that keeps the objective keeps its breach.
 */
import { type SloChange } from '@switchyard/contracts';
import { outcomeOf, STAGE, storeLocal, type AttemptOutcome, type Candidate, type Pipeline, type RequestContext, type RequestOutcome } from '@switchyard/core';
import { withField } from '@switchyard/core/internal';
import { levelName, PLUGIN_NAME } from './levels.js';
import type { Level, SloOptions } from './options.js';

type Decision = 'normal' | 'probe' | 'affected';

const BUCKETS = 60;

/** Successes and totals over a sliding time window, in buckets (memory does not grow with traffic). */
class WindowCounter {
  private readonly starts = new Float64Array(BUCKETS);
  private readonly totals = new Uint32Array(BUCKETS);
  private readonly oks = new Uint32Array(BUCKETS);
  private readonly bucketMs: number;

  constructor(private readonly windowMs: number) {
    this.bucketMs = Math.max(1, Math.ceil(windowMs / BUCKETS));
  }

  add(now: number, ok: boolean): void {
    const start = Math.floor(now / this.bucketMs) * this.bucketMs;
    const i = Math.floor(start / this.bucketMs) % BUCKETS;
    if (this.starts[i] !== start) {
      this.starts[i] = start;
      this.totals[i] = 0;
      this.oks[i] = 0;
    }
    this.totals[i]! += 1;
    if (ok) this.oks[i]! += 1;
  }

  sum(now: number): { total: number; ok: number } {
    let total = 0;
    let ok = 0;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.starts[i]! > now - this.windowMs && this.totals[i]! > 0) {
        total += this.totals[i]!;
        ok += this.oks[i]!;
      }
    }
    return { total, ok };
  }

  clear(): void {
    this.totals.fill(0);
    this.oks.fill(0);
    this.starts.fill(0);
  }
}

/** What an objective knows; kept with the store so it outlives a reload. */
class ObjectiveState {
  breached = false;
  since = 0;
  lastRate = 1;
  lastSamples = 0;
  readonly probes: boolean[] = [];
  constructor(readonly window: WindowCounter) {}
}

export class Objective {
  readonly state: ObjectiveState;
  readonly recoverAt: number;
  readonly scope: string;
  readonly actions: string[];
  /** The logical models whose requests this objective measures and acts on. */
  readonly models: ReadonlySet<string>;

  constructor(
    readonly options: SloOptions,
    private readonly pipeline: Pipeline,
  ) {
    this.recoverAt = options.recoverAt ?? options.target + (1 - options.target) / 2;
    this.scope = options.model !== undefined ? `model:${options.model}` : `deployment:${options.deployment}`;
    this.models = new Set(options.model !== undefined ? [options.model] : pipeline.modelNames().filter((m) => pipeline.candidatesFor(m).some((c) => c.deploymentId === options.deployment)));
    const then = options.then;
    this.actions = [
      ...(then.degrade ?? []).map((l) => `degrade:${levelName(l)}`),
      ...(then.exclude ?? []).map((e) => `exclude:${e}`),
      ...(then.fromPriority !== undefined ? [`from-priority:${then.fromPriority}`] : []),
      ...(then.tier !== undefined ? [`tier:${then.tier}`] : []),
    ];
    // Same definition, same state: a reload that changes the objective starts it afresh.
    this.state = storeLocal(pipeline.store, `${PLUGIN_NAME}:slo:${JSON.stringify(options)}`, () => new ObjectiveState(new WindowCounter(options.windowMs)));
  }

  get breached(): boolean {
    return this.state.breached;
  }

  decide(): Decision {
    if (!this.state.breached) return 'normal';
    return this.pipeline.random() < this.options.probeShare ? 'probe' : 'affected';
  }

  /** One sample from a request this objective did not change. */
  record(ok: boolean): void {
    const { state, options } = this;
    const now = this.pipeline.clock.now();
    if (!state.breached) {
      state.window.add(now, ok);
      const { total, ok: good } = state.window.sum(now);
      if (total >= options.minSamples && good / total < options.target) this.change(true, good / total, total, now);
      return;
    }
    state.probes.push(ok);
    if (state.probes.length > options.recoverSamples) state.probes.shift();
    if (state.probes.length < options.recoverSamples || now - state.since < options.minBreachMs) return;
    const rate = state.probes.filter(Boolean).length / state.probes.length;
    if (rate >= this.recoverAt) this.change(false, rate, state.probes.length, now);
  }

  private change(breached: boolean, rate: number, samples: number, now: number): void {
    const { state } = this;
    state.breached = breached;
    state.since = now;
    state.lastRate = rate;
    state.lastSamples = samples;
    state.probes.length = 0;
    state.window.clear();
    const change: SloChange = { name: this.options.name, state: breached ? 'breached' : 'ok', scope: this.scope, successRate: rate, samples, target: this.options.target, recoverAt: this.recoverAt, actions: this.actions, at: now };
    this.pipeline.events.emit('slo:change', change);
  }
}

const DECISIONS = 'switchyard:slo';

/** The plan an objective put on a request: its levels are served without trying the candidates. */
export interface SloPlan {
  name: string;
  levels: Level[];
}
export const SLO_PLAN = 'switchyard:slo-plan';

function decisionsOf(ctx: RequestContext): Map<Objective, Decision> | undefined {
  return ctx.state[DECISIONS] as Map<Objective, Decision> | undefined;
}

function excluded(candidate: Candidate, objective: Objective): boolean {
  const { exclude, fromPriority } = objective.options.then;
  if (exclude && (exclude.includes(candidate.deploymentId) || exclude.includes(candidate.endpoint.name))) return true;
  return fromPriority !== undefined && candidate.priority < fromPriority;
}

/** The taps: decide per request (classify), act (classify's tier, route's filter), measure (record taps). */
export function guardObjectives(pipeline: Pipeline, slos: readonly SloOptions[]): void {
  if (slos.length === 0) return;
  const objectives = slos.map((s) => new Objective(s, pipeline));
  const byModel = new Map<string, Objective[]>();
  for (const o of objectives) for (const m of o.models) byModel.set(m, [...(byModel.get(m) ?? []), o]);

  pipeline.hooks.classify.tap({ name: PLUGIN_NAME, stage: STAGE.FIRST }, (classification, ctx) => {
    const mine = byModel.get(ctx.model);
    if (!mine || ctx.kind !== 'chat') return classification;
    const decisions = new Map<Objective, Decision>();
    ctx.state[DECISIONS] = decisions;
    let tier: string | undefined;
    for (const o of mine) {
      const decision = o.decide();
      decisions.set(o, decision);
      if (decision !== 'affected') continue;
      tier ??= o.options.then.tier;
      if (o.options.then.degrade && !ctx.state[SLO_PLAN]) ctx.state[SLO_PLAN] = { name: o.options.name, levels: o.options.then.degrade } satisfies SloPlan;
    }
    return tier === undefined ? classification : withField(classification, 'tier', tier);
  });

  pipeline.hooks.route.tap({ name: PLUGIN_NAME, stage: STAGE.FILTER }, (candidates, _classification, ctx) => {
    const decisions = decisionsOf(ctx);
    if (!decisions) return candidates;
    // A degrade plan answers without trying any candidate.
    if (ctx.state[SLO_PLAN]) return [];
    let kept = candidates;
    for (const [o, decision] of decisions) if (decision === 'affected') kept = kept.filter((c) => !excluded(c, o));
    // Never route nowhere because of an exclusion: the unfiltered list is the least bad.
    return kept.length > 0 ? kept : candidates;
  });

  const counted = (o: Objective, ctx: RequestContext) => {
    const decision = decisionsOf(ctx)?.get(o);
    return decision === 'normal' || decision === 'probe';
  };
  const modelScoped = objectives.filter((o) => o.options.model !== undefined);
  const deploymentScoped = objectives.filter((o) => o.options.deployment !== undefined);

  if (modelScoped.length > 0) {
    pipeline.hooks.recordRequest.tap(PLUGIN_NAME, (outcome: RequestOutcome, ctx) => {
      if (!decisionsOf(ctx)) return;
      // Cache hits, cancellations and requests the vendor rejected say nothing about availability.
      if (outcome.response?.switchyard?.cached) return;
      if (outcome.error && (outcome.error.kind === 'cancelled' || outcome.error.kind === 'invalid-request' || outcomeOf(outcome.error) === 'request-failure')) return;
      for (const o of modelScoped) if (o.options.model === ctx.model && counted(o, ctx)) o.record(outcome.ok && !outcome.degraded);
    });
  }
  if (deploymentScoped.length > 0) {
    pipeline.hooks.recordAttempt.tap(PLUGIN_NAME, (outcome: AttemptOutcome, ctx) => {
      if (!decisionsOf(ctx) || outcome.outcome === 'ignored' || outcome.outcome === 'request-failure') return;
      for (const o of deploymentScoped) if (o.options.deployment === outcome.candidate.deploymentId && counted(o, ctx)) o.record(outcome.ok);
    });
  }
}
