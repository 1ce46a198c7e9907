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

/** One provider's `call` hook. */
export type CallHook = AsyncSeriesBailHook<[Attempt, RequestContext], AttemptResult | undefined>;

/** The `call` hooks made so far and the taps every one of them gets, per pipeline. */
interface EveryCallSeam {
  readonly made: [providerId: string, hook: CallHook][];
  readonly taps: ((hook: CallHook, providerId: string) => void)[];
}
const seams = new WeakMap<PipelineHooks['call'], EveryCallSeam>();

function callHooks(): PipelineHooks['call'] {
  const call = new HookMap((providerId: string): CallHook => new AsyncSeriesBailHook<[Attempt, RequestContext], AttemptResult | undefined>(['attempt', 'context'], `call:${providerId}`));
  const seam: EveryCallSeam = { made: [], taps: [] };
  call.intercept({
    factory: (providerId, hook) => {
      seam.made.push([providerId, hook]);
      for (const tap of seam.taps) tap(hook, providerId);
      return hook;
    },
  });
  seams.set(call, seam);
  return call;
}

/**
 * Taps every provider's `call`: each hook made so far, and each made later (a provider
 * registered after this plugin was applied). `tap` receives the hook and taps it as it likes
 * (sync or promise); it runs once per provider id.
 */
export function tapEveryCall(pipeline: { readonly hooks: PipelineHooks }, tap: (hook: CallHook, providerId: string) => void): void {
  const seam = seams.get(pipeline.hooks.call);
  if (!seam) throw new TypeError('tapEveryCall: these hooks were not made by createPipelineHooks');
  seam.taps.push(tap);
  for (const [providerId, hook] of seam.made) tap(hook, providerId);
}

export function createPipelineHooks(): PipelineHooks {
  return Object.freeze({
    classify: new AsyncSeriesWaterfallHook<[Classification, RequestContext]>(['classification', 'context'], 'classify'),
    route: new AsyncSeriesWaterfallHook<[Candidate[], Classification, RequestContext]>(['candidates', 'classification', 'context'], 'route'),
    call: callHooks(),
    recordAttempt: new AsyncSeriesHook<[AttemptOutcome, RequestContext]>(['outcome', 'context'], 'recordAttempt'),
    retry: new AsyncSeriesBailHook<[AttemptOutcome, RequestContext], RetryDecision | undefined>(['outcome', 'context'], 'retry'),
    failover: new AsyncSeriesWaterfallHook<[Candidate[], AttemptOutcome, RequestContext]>(['remaining', 'failed', 'context'], 'failover'),
    degrade: new AsyncSeriesBailHook<[SwitchyardError, RequestContext], DegradeResult | undefined>(['error', 'context'], 'degrade'),
    continueStream: new AsyncSeriesBailHook<[StreamInterruption, RequestContext], AsyncIterable<StreamPart> | undefined>(['interruption', 'context'], 'continueStream'),
    recordRequest: new AsyncParallelHook<[RequestOutcome, RequestContext]>(['outcome', 'context'], 'recordRequest'),
    close: new AsyncParallelHook<[]>([], 'close'),
  });
}
