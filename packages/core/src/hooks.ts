/**
 * The request lifecycle as tapable hooks (see docs/lifecycle.md). Hooks change behaviour;
 * the event bus only observes. The hook and payload types are in contract.ts.
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { Attempt, AttemptOutcome, AttemptResult, Classification, DegradeResult, PipelineHooks, RequestContext, RequestOutcome, RetryDecision, StreamInterruption } from './contract.js';
import type { SwitchyardError } from './errors.js';
import type { Candidate, StreamPart } from './types.js';

export type { Attempt, AttemptOutcome, AttemptResult, Classification, DegradeResult, PipelineHooks, RequestOutcome, RetryDecision, StreamInterruption } from './contract.js';

/** Tap stages: plugins order themselves with `{ stage: STAGE.X }`. */
export const STAGE = Object.freeze({
  /** Before everything: validation, tracing, request rewriting. */
  FIRST: -1000,
  /** Filters that remove candidates (breaker, quota, cooldown) before ordering. */
  FILTER: -100,
  /** The built-in defaults and ordinary plugins. */
  DEFAULT: 0,
  /** Ordering that wants to see the filtered list (router strategies). */
  ORDER: 100,
  /** After everything: observers and last-resort fallbacks. */
  LAST: 1000,
});

export function createPipelineHooks(): PipelineHooks {
  return Object.freeze({
    classify: new AsyncSeriesWaterfallHook<[Classification, RequestContext]>(['classification', 'context'], 'classify'),
    route: new AsyncSeriesWaterfallHook<[Candidate[], Classification, RequestContext]>(['candidates', 'classification', 'context'], 'route'),
    call: new HookMap((providerId: string) => new AsyncSeriesBailHook<[Attempt, RequestContext], AttemptResult | undefined>(['attempt', 'context'], `call:${providerId}`)),
    recordAttempt: new AsyncSeriesHook<[AttemptOutcome, RequestContext]>(['outcome', 'context'], 'recordAttempt'),
    retry: new AsyncSeriesBailHook<[AttemptOutcome, RequestContext], RetryDecision | undefined>(['outcome', 'context'], 'retry'),
    failover: new AsyncSeriesWaterfallHook<[Candidate[], AttemptOutcome, RequestContext]>(['remaining', 'failed', 'context'], 'failover'),
    degrade: new AsyncSeriesBailHook<[SwitchyardError, RequestContext], DegradeResult | undefined>(['error', 'context'], 'degrade'),
    continueStream: new AsyncSeriesBailHook<[StreamInterruption, RequestContext], AsyncIterable<StreamPart> | undefined>(['interruption', 'context'], 'continueStream'),
    recordRequest: new AsyncParallelHook<[RequestOutcome, RequestContext]>(['outcome', 'context'], 'recordRequest'),
  });
}
