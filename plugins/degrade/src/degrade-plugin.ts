/**
 * Tiered degradation: when every candidate failed, the levels of the request's plan are tried
 * in order (cheaper model, local endpoint, smaller output limit, stale cache, curated answer,
 * canned answer); when none answers, a clean error says what was tried, and the request can be
 * kept in a durable queue (and replayed on a schedule).
 *
 * Taps: degrade at STAGE.DEFAULT (one level per call: a candidate level returns its
 * candidates, and when they all fail the core runs the stage again for the next level),
 * recordRequest (queues requests that failed for good); with `curated.first` classify
 * (curated answers before any vendor call); with `slo` classify, route, recordAttempt and
 * recordRequest (slo-guard.ts).
 */
import { REQUEST_SLOT } from '@switchyard/contracts';
import { definePlugin, outcomeOf, STAGE, SwitchyardError, type ChatRequest, type ChatResponse, type DegradeResult, type RequestContext } from '@switchyard/core';
import { endpointKeys, withField } from '@switchyard/core/internal';
import { loadCuratedAnswers, type CuratedAnswers } from './curated-answers.js';
import { fixedAnswer } from './fixed-answer.js';
import { checkLevelsAgainst, levelCandidates, levelName, modelCandidates, PLUGIN_NAME } from './levels.js';
import { fixableByShorterOutput, withSmallerOutput } from './max-tokens.js';
import { degradeOptionsSchema, type DegradeOptions, type DegradeOptionsInput, type Level } from './options.js';
import { appendToQueue, queueEntry } from './queue.js';
import { scheduleReplay } from './replay-schedule.js';
import { guardObjectives, SLO_PLAN, type SloPlan } from './slo-guard.js';

const RUN_SLOT = 'switchyard:degrade';

interface Tried {
  level: string;
  result: string;
  attemptsBefore: number;
}

interface DegradeRun {
  plan: Level[];
  next: number;
  tried: Tried[];
  original: SwitchyardError;
}

/** Failures a fallback answer must not hide, or that nothing downstream can fix. */
const NOT_QUEUED = new Set(['cancelled', 'invalid-request', 'unknown-model', 'bad-request', 'context-length', 'content-filter', 'config', 'plugin']);

function planFor(options: DegradeOptions, ctx: RequestContext): Level[] {
  const slo = ctx.state[SLO_PLAN] as SloPlan | undefined;
  if (slo) return slo.levels;
  const tier = ctx.classification.tier;
  return (tier !== undefined ? options.tiers[tier] : undefined) ?? options.models[ctx.model] ?? options.levels;
}

function failuresSince(ctx: RequestContext, from: number): string {
  const errors = ctx.attempts.slice(from).filter((a) => a.error);
  if (errors.length === 0) return 'failed';
  return errors.map((a) => `${a.candidate.deploymentId}: ${a.error!.kind}${a.error!.status ? ` ${a.error!.status}` : ''}`).join(', ');
}

function exhausted(run: DegradeRun, ctx: RequestContext): SwitchyardError {
  const original = run.original;
  const tried = run.tried.map((t) => `${t.level} (${t.result})`).join('; ');
  return new SwitchyardError(original.kind, `${original.message}; degrade levels tried without an answer: ${tried}`, {
    code: original.code,
    status: original.status,
    retryable: original.retryable,
    retryAfterMs: original.retryAfterMs,
    attempts: ctx.errors(),
    cause: original,
  });
}

/** The run of a request's plan, started on the first call of the stage; undefined when it is not degraded. */
function startRun(options: DegradeOptions, error: SwitchyardError, ctx: RequestContext): DegradeRun | undefined {
  let plan = planFor(options, ctx);
  if (plan.length === 0 || ctx.kind !== 'chat') return undefined;
  if (outcomeOf(error) === 'request-failure') {
    // A rejected request would be rejected by a fallback too, and the vendor's reason reaches
    // the caller; only a smaller output limit can fix an output limit the vendor refused.
    if (!fixableByShorterOutput(error)) return undefined;
    plan = plan.filter((l) => l.type === 'max-tokens');
    if (plan.length === 0) return undefined;
  }
  const slo = ctx.state[SLO_PLAN] as SloPlan | undefined;
  const original = slo && ctx.attempts.length === 0 ? new SwitchyardError('no-candidate', `objective "${slo.name}" is missed: requests of model "${ctx.model}" are served by its degrade levels`, { status: 503, cause: error }) : error;
  return { plan, next: 0, tried: [], original };
}

export const degrade = definePlugin<DegradeOptions, DegradeOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: degradeOptionsSchema,
  apply(pipeline, options) {
    checkLevelsAgainst(pipeline, options);
    const curated: CuratedAnswers | undefined = options.curated ? loadCuratedAnswers(options.curated.file, options.curated.match) : undefined;
    const secrets = pipeline.endpoints.flatMap((e) => endpointKeys(e));
    const queueFile = options.queueFile;

    /** A canned answer that also keeps the request for replay: the caller is told only once the line is written. */
    const queueForLater = async (response: ChatResponse, run: DegradeRun, ctx: RequestContext): Promise<void> => {
      try {
        await appendToQueue(queueFile!, queueEntry(ctx.id, ctx.clock.now(), ctx.request as ChatRequest, ctx.stream, run.original, secrets));
        response.switchyard!.queued = ctx.id;
      } catch (error) {
        pipeline.events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'degrade', error });
      }
    };

    pipeline.hooks.degrade.tapPromise({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, async (error, ctx): Promise<DegradeResult | undefined> => {
      let run = ctx.state[RUN_SLOT] as DegradeRun | undefined;
      if (!run) {
        run = startRun(options, error, ctx);
        if (!run) return undefined;
        ctx.state[RUN_SLOT] = run;
        // The cache plugin's stale answer for this request (see @switchyard/plugin-cache).
        const stale = REQUEST_SLOT.staleAnswer.get(ctx);
        if (stale && run.plan.some((l) => l.type === 'stale-cache')) stale.claimed = true;
      } else {
        const last = run.tried.at(-1);
        if (last?.result === 'running') last.result = failuresSince(ctx, last.attemptsBefore);
      }
      const skip = (level: string, result: string) => run.tried.push({ level, result, attemptsBefore: ctx.attempts.length });
      while (run.next < run.plan.length) {
        const level = run.plan[run.next++]!;
        const name = levelName(level);
        switch (level.type) {
          case 'canned': {
            const response = fixedAnswer(level.text, ctx, 'canned');
            if (level.queue) await queueForLater(response, run, ctx);
            return { level: name, response };
          }
          case 'stale-cache': {
            const slot = REQUEST_SLOT.staleAnswer.get(ctx);
            const response = await slot?.lookup();
            if (response) return { level: name, response };
            skip(name, slot ? 'no stored answer' : 'no cache plugin, or the request opted out');
            continue;
          }
          case 'curated': {
            const answer = curated!.answerFor(ctx.request as ChatRequest, ctx.model);
            if (answer !== undefined) return { level: name, response: fixedAnswer(answer, ctx, 'curated') };
            skip(name, 'no curated answer for this question');
            continue;
          }
          case 'max-tokens': {
            const request = withSmallerOutput(ctx.request as ChatRequest, level.maxTokens);
            if (!request) {
              skip(name, `the output limit is ${level.maxTokens} or less already`);
              continue;
            }
            // The same deployments again, failed or not: the smaller limit is what is new.
            const candidates = modelCandidates(pipeline, level.model ?? ctx.model);
            run.tried.push({ level: name, result: 'running', attemptsBefore: ctx.attempts.length });
            return { level: name, candidates, request };
          }
          default: {
            // Deployments that already failed this request are not asked again.
            const failed = new Set(ctx.attempts.filter((a) => !a.ok).map((a) => a.candidate.id));
            const candidates = levelCandidates(pipeline, level).filter((c) => !failed.has(c.id));
            if (candidates.length === 0) {
              skip(name, 'no candidate left');
              continue;
            }
            run.tried.push({ level: name, result: 'running', attemptsBefore: ctx.attempts.length });
            return { level: name, candidates };
          }
        }
      }
      throw exhausted(run, ctx);
    });

    if (curated && options.curated?.first) {
      // After the response cache's lookup (STAGE.DEFAULT): the operator's answer wins over a stored one.
      pipeline.hooks.classify.tap({ name: PLUGIN_NAME, stage: STAGE.ORDER }, (classification, ctx) => {
        if (ctx.kind !== 'chat') return classification;
        const answer = curated.answerFor(ctx.request as ChatRequest, ctx.model);
        // Labelled cached: it is served from the curated cache, and the response cache does not store it again.
        if (answer !== undefined) ctx.respond(withField(fixedAnswer(answer, ctx, 'curated'), 'switchyard', { endpoint: 'curated', deployment: 'curated', provider: 'degrade', attempts: 0, cached: true }));
        return classification;
      });
    }

    guardObjectives(pipeline, options.slo);

    if (queueFile) {
      pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (outcome, ctx) => {
        if (outcome.ok || !outcome.error || ctx.kind !== 'chat' || NOT_QUEUED.has(outcome.error.kind)) return;
        // A committed stream that broke already gave the caller part of an answer and an error.
        if (outcome.attempts.some((a) => a.phase === 'post-commit')) return;
        await appendToQueue(queueFile, queueEntry(ctx.id, ctx.clock.now(), ctx.request as ChatRequest, ctx.stream, outcome.error, secrets));
      });
      if (options.replay) scheduleReplay(pipeline, queueFile, options.replay);
    }
  },
});

export default degrade;
