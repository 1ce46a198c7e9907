/**
 * Tiered degradation: when every candidate failed, the levels of the request's plan are tried
 * in order (cheaper model, local endpoint, stale cache, canned answer); when none answers, a
 * clean error says what was tried, and the request can be kept in a durable queue.
 *
 * Taps: degrade at STAGE.DEFAULT (one level per call: a model or endpoint level returns its
 * candidates, and when they all fail the core runs the stage again for the next level),
 * recordRequest (queues requests that failed for good).
 */
import { definePlugin, endpointKeys, outcomeOf, REQUEST_SLOT, STAGE, SwitchyardError, type ChatRequest, type ChatResponse, type DegradeResult, type RequestContext } from '@switchyard/core';
import { checkLevelsAgainst, levelCandidates, levelName, PLUGIN_NAME } from './levels.js';
import { degradeOptionsSchema, type DegradeOptions, type DegradeOptionsInput, type Level } from './options.js';
import { appendToQueue, queueEntry } from './queue.js';

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
  const tier = ctx.classification.tier;
  return (tier !== undefined ? options.tiers[tier] : undefined) ?? options.models[ctx.model] ?? options.levels;
}

function canned(text: string, ctx: RequestContext): ChatResponse {
  return {
    id: `canned-${ctx.id}`,
    object: 'chat.completion',
    created: Math.floor(ctx.clock.now() / 1000),
    model: 'canned',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    switchyard: { endpoint: 'degrade', deployment: 'canned', provider: 'degrade', attempts: ctx.attempts.length },
  };
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

export const degrade = definePlugin<DegradeOptions, DegradeOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: degradeOptionsSchema,
  apply(pipeline, options) {
    checkLevelsAgainst(pipeline, options);

    pipeline.hooks.degrade.tapPromise({ name: PLUGIN_NAME, stage: STAGE.DEFAULT }, async (error, ctx): Promise<DegradeResult | undefined> => {
      let run = ctx.state[RUN_SLOT] as DegradeRun | undefined;
      if (!run) {
        const plan = planFor(options, ctx);
        // A rejected request would be rejected by a fallback too; the vendor's reason reaches the caller.
        if (plan.length === 0 || ctx.kind !== 'chat' || outcomeOf(error) === 'request-failure') return undefined;
        run = { plan, next: 0, tried: [], original: error };
        ctx.state[RUN_SLOT] = run;
        // The cache plugin's stale answer for this request (see @switchyard/plugin-cache).
        const stale = REQUEST_SLOT.staleAnswer.get(ctx);
        if (stale && plan.some((l) => l.type === 'stale-cache')) stale.claimed = true;
      } else {
        const last = run.tried.at(-1);
        if (last?.result === 'running') last.result = failuresSince(ctx, last.attemptsBefore);
      }
      while (run.next < run.plan.length) {
        const level = run.plan[run.next++];
        const name = levelName(level);
        if (level.type === 'canned') return { level: name, response: canned(level.text, ctx) };
        if (level.type === 'stale-cache') {
          const slot = REQUEST_SLOT.staleAnswer.get(ctx);
          const response = await slot?.lookup();
          if (response) return { level: name, response };
          run.tried.push({ level: name, result: slot ? 'no stored answer' : 'no cache plugin, or the request opted out', attemptsBefore: ctx.attempts.length });
          continue;
        }
        // Deployments that already failed this request are not asked again.
        const failed = new Set(ctx.attempts.filter((a) => !a.ok).map((a) => a.candidate.id));
        const candidates = levelCandidates(pipeline, level).filter((c) => !failed.has(c.id));
        if (candidates.length === 0) {
          run.tried.push({ level: name, result: 'no candidate left', attemptsBefore: ctx.attempts.length });
          continue;
        }
        run.tried.push({ level: name, result: 'running', attemptsBefore: ctx.attempts.length });
        return { level: name, candidates };
      }
      throw exhausted(run, ctx);
    });

    const queueFile = options.queueFile;
    if (queueFile) {
      const secrets = pipeline.endpoints.flatMap((e) => endpointKeys(e));
      pipeline.hooks.recordRequest.tapPromise(PLUGIN_NAME, async (outcome, ctx) => {
        if (outcome.ok || !outcome.error || ctx.kind !== 'chat' || NOT_QUEUED.has(outcome.error.kind)) return;
        // A committed stream that broke already gave the caller part of an answer and an error.
        if (outcome.attempts.some((a) => a.phase === 'post-commit')) return;
        await appendToQueue(queueFile, queueEntry(ctx.id, ctx.clock.now(), ctx.request as ChatRequest, ctx.stream, outcome.error, secrets));
      });
    }
  },
});

export default degrade;
