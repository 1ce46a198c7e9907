/**
 * One attempt: start it (number, signal, timer phases), run the provider's `call` tap, and
 * settle it into a discriminated result. Plugin-run attempts (`ctx.runAttempt`) go through the
 * same path; a call tap that answers with one hands it over to the core, which records it once.
 */
import { attemptEndRecord, candidateRef } from './candidate-ref.js';
import { AbortLink, onAbortOf } from './abort-link.js';
import { RequestTimer } from './request-timer.js';
import type { Attempt, AttemptOutcome, AttemptResult, PipelineHooks, RequestContext, RunAttemptOptions, StreamAttemptResult } from './contract.js';
import { isSwitchyardError, outcomeOf, SwitchyardError, toSwitchyardError } from './errors.js';
import { ResponseAccumulator } from './aggregate.js';
import { attributeError } from './attribute-error.js';
import { attemptTimeouts } from './switchyard-hints.js';
import { runHook } from './run-hook.js';
import type { Candidate, ChatRequest, EmbeddingRequest, StreamPart } from './types.js';

type CallHook = NonNullable<ReturnType<PipelineHooks['call']['get']>>;

/** What an attempt needs from the request it belongs to. */
export interface AttemptScope {
  readonly ctx: RequestContext;
  /** The request's timer: it serves one attempt at a time (the core's). */
  readonly timer: RequestTimer;
  /** Why the request was aborted (caller, deadline), once it was. */
  abortReason(): SwitchyardError | undefined;
}

/** An attempt that has started and is not recorded yet. */
export interface LiveAttempt {
  readonly number: number;
  readonly candidate: Candidate;
  /** Aborts the attempt (timeouts, the request's abort, a hedge that lost). */
  readonly abort: AbortLink;
  readonly startedAt: number;
  readonly stream: boolean;
  readonly initiator: string;
  readonly attempt: Attempt;
  ttftMs: number | undefined;
  headers: Record<string, string> | undefined;
  /** The vendor's response headers arrived (a later failure may still be billed). */
  headersArrived: boolean;
  /** What the transport said of the request body (unknown: it says nothing). */
  requestState: 'unknown' | 'pending' | 'written';
  /** A plugin-run attempt the core took over (a hedge winner): the core records it, not the plugin's reader. */
  ownedByCore: boolean;
  /** Stops its timer phase and its signal links; safe to call more than once. */
  release(): void;
}

export type AnswerResult = Exclude<AttemptResult, StreamAttemptResult>;

/** How an attempt ended before (or at) its commit point. */
export type AttemptSettlement =
  /** Failed and recorded. */
  | { type: 'failed'; outcome: AttemptOutcome }
  /** A whole answer, recorded. */
  | { type: 'answered'; result: AnswerResult; live: LiveAttempt }
  /** A stream at its commit point; recorded when the stream ends. */
  | { type: 'streaming'; result: StreamAttemptResult; live: LiveAttempt };

interface StartOptions {
  initiator: string;
  signal?: AbortSignal;
  request?: ChatRequest | EmbeddingRequest;
}

export class AttemptRunner {
  private lastNumber = 0;
  private sharedTimerBusy = false;
  private readonly active = new Set<AbortLink>();
  /** Results of plugin-run attempts, so a call tap that answers with one hands it over (made on first use: most requests have none). */
  private pluginResults: WeakMap<object, LiveAttempt> | undefined;
  /** Errors of plugin-run attempts, recorded already: rethrown by a call tap, they are not recorded twice. */
  private recordedFailures: WeakMap<SwitchyardError, AttemptOutcome> | undefined;

  constructor(private readonly scope: AttemptScope) {}

  /** Aborts every attempt still running (no per-attempt listeners on the request signal). */
  abortAll(reason: SwitchyardError): void {
    for (const link of this.active) link.abort(reason);
  }

  /** Runs one attempt of the core loop (or the degrade stage, perhaps with its variant of the request) to its settlement. */
  run(candidate: Candidate, initiator: string, request?: ChatRequest): Promise<AttemptSettlement> {
    return this.startAndSettle(candidate, { initiator, request });
  }

  /** Starts an attempt and settles it; a failure may be repaired once (`repaired`). */
  private startAndSettle(candidate: Candidate, options: StartOptions): Promise<AttemptSettlement> {
    return this.settle(this.start(candidate, options), options);
  }

  /** A failed attempt's settlement, or its repair (`repaired`) when `repairable` says how it was started. */
  private failed(outcome: AttemptOutcome, candidate: Candidate, repairable: StartOptions | undefined): AttemptSettlement | Promise<AttemptSettlement> {
    return (repairable && this.repaired(outcome, candidate, repairable)) || { type: 'failed', outcome };
  }

  /**
   * A failed attempt's second chance: when its provider knows the one change that fixes the
   * vendor's refusal (`ProviderV1.repair`: Anthropic's invalid thinking signature), the attempt
   * is made once more on the same deployment with the repaired request instead of leaving the
   * refusal to fail over. Undefined when there is none.
   */
  private repaired(outcome: AttemptOutcome, candidate: Candidate, options: StartOptions): Promise<AttemptSettlement> | undefined {
    const { error } = outcome;
    if (!error) return undefined;
    const { ctx } = this.scope;
    const request = (options.request ?? ctx.request) as ChatRequest;
    if (!Array.isArray(request.messages)) return undefined; // embeddings
    const repaired = ctx.pipeline.providers.get(candidate.provider)?.repair?.(request, error, candidate);
    if (!repaired || ctx.signal.aborted) return undefined;
    return this.settle(this.start(candidate, { ...options, request: repaired }));
  }

  /**
   * An attempt a plugin starts itself. It is recorded like any other; a call tap that answers
   * with its result (or rethrows its error) hands the attempt over, and the core records it
   * once. A stream that no one hands over is recorded when its reader finishes.
   */
  async runForPlugin(candidate: Candidate, options: RunAttemptOptions = {}): Promise<AttemptResult> {
    const settled = await this.startAndSettle(candidate, { initiator: options.initiator ?? 'plugin', signal: options.signal, request: options.request });
    if (settled.type === 'failed') {
      const error = settled.outcome.error!;
      (this.recordedFailures ??= new WeakMap()).set(error, settled.outcome);
      throw error;
    }
    const result: AttemptResult = settled.type === 'answered' ? settled.result : { ...settled.result, rest: this.recordWhenRead(settled.live, settled.result) };
    (this.pluginResults ??= new WeakMap()).set(result, settled.live);
    return result;
  }

  outcome(live: LiveAttempt, error: SwitchyardError | undefined, result?: AttemptResult, phase: AttemptOutcome['phase'] = 'pre-commit', usage?: AttemptOutcome['usage'], outputChars?: number): AttemptOutcome {
    const answer = result && result.type !== 'stream' ? result : undefined;
    const endedAt = this.scope.ctx.clock.now();
    return {
      attempt: live.number,
      candidate: live.candidate,
      ok: !error,
      outcome: error ? outcomeOf(error) : 'success',
      error,
      latencyMs: endedAt - live.startedAt,
      endedAt,
      ttftMs: live.ttftMs,
      usage: usage ?? (answer?.response.usage as AttemptOutcome['usage']),
      headers: live.headers ?? answer?.headers ?? error?.headers,
      phase,
      stream: live.stream,
      initiator: live.initiator,
      headersReceived: live.headersArrived,
      requestSent: live.headersArrived || live.requestState === 'written' ? true : live.requestState === 'pending' ? false : undefined,
      outputChars,
    };
  }

  /** Records an outcome; a promise only when a `recordAttempt` tap is async (a stream's clean end then takes no turn of its own). */
  record(outcome: AttemptOutcome): Promise<void> | undefined {
    const { ctx } = this.scope;
    ctx.attempts.push(outcome);
    if (ctx.pipeline.hooks.recordAttempt.taps.length) {
      const recorded = runHook(ctx.pipeline.hooks.recordAttempt, outcome, ctx);
      if (recorded instanceof Promise) return recorded.then(() => this.emitAttemptEnd(outcome));
    }
    this.emitAttemptEnd(outcome);
    return undefined;
  }

  private emitAttemptEnd(outcome: AttemptOutcome): void {
    const { ctx } = this.scope;
    const { events } = ctx.pipeline;
    if (events.listenerCount('attempt:end')) events.emit('attempt:end', attemptEndRecord(outcome, ctx.id));
  }

  /** Ends a live attempt after its commit point: one outcome, then its timer and links are released. */
  recordAfterCommit(live: LiveAttempt, error: SwitchyardError | undefined, acc: ResponseAccumulator): Promise<void> | undefined {
    const outcome = this.outcome(live, error, undefined, 'post-commit', acc.usage, acc.outputChars());
    live.release();
    return this.record(outcome);
  }

  /** Abort reasons carry the real cause (deadline, TTFT, caller); prefer them to a socket error. */
  failureOf(caught: unknown, live: LiveAttempt): SwitchyardError {
    const { abort } = live;
    const error = abort.aborted && isSwitchyardError(abort.reason) ? abort.reason : toSwitchyardError(caught);
    return attributeError(error, live.candidate);
  }

  private start(candidate: Candidate, opts: StartOptions): LiveAttempt {
    const { ctx, timer: requestTimer } = this.scope;
    const number = ++this.lastNumber;
    const abort = new AbortLink();
    const aborted = this.scope.abortReason();
    if (aborted) abort.abort(aborted);
    else this.active.add(abort);
    const extra = opts.signal;
    const unlink = extra ? onAbortOf(extra, () => abort.abort(extra.reason)) : undefined;
    // The request's single timer serves the core's attempt; concurrent plugin attempts (hedges) get their own.
    const sharesTimer = !this.sharedTimerBusy;
    if (sharesTimer) this.sharedTimerBusy = true;
    const timer = sharesTimer ? requestTimer : new RequestTimer(ctx.clock, Number.POSITIVE_INFINITY, () => undefined);
    const live = new RunningAttempt(this, number, candidate, abort, ctx, opts, timer, sharesTimer, unlink);
    const events = ctx.pipeline.events;
    if (events.listenerCount('attempt:start')) events.emit('attempt:start', { requestId: ctx.id, attempt: number, candidate: candidateRef(candidate) });
    return live;
  }

  /** Called by a released attempt: its link leaves the abort set and the shared timer is free again. */
  released(abort: AbortLink, sharedTimer: boolean): void {
    this.active.delete(abort);
    if (sharedTimer) {
      this.scope.timer.clearAttempt();
      this.sharedTimerBusy = false;
    }
  }

  /** `repairable`: how the attempt was started, when a failure may be repaired once (`repaired`). */
  private async settle(live: LiveAttempt, repairable?: StartOptions): Promise<AttemptSettlement> {
    const { ctx } = this.scope;
    const { candidate } = live;
    let result: AttemptResult | undefined;
    let error: SwitchyardError | undefined;
    try {
      const hook = ctx.pipeline.hooks.call.get(candidate.provider);
      if (!hook) throw new SwitchyardError('config', `no provider "${candidate.provider}" is registered`, { code: 'SWITCHYARD_ERR_CONFIG', retryable: false });
      result = await callTaps(hook, live.attempt, ctx);
      if (!result) throw new SwitchyardError('plugin', `no call tap answered for provider "${candidate.provider}"`, { retryable: false });
    } catch (caught) {
      const recorded = isSwitchyardError(caught) ? this.recordedFailures?.get(caught) : undefined;
      if (recorded) {
        // A plugin-run attempt failed and was recorded already; decide on its outcome.
        live.release();
        return this.failed(recorded, candidate, repairable);
      }
      error = this.failureOf(caught, live);
    }
    if (error || !result) {
      const outcome = this.outcome(live, error);
      live.release();
      const recording = this.record(outcome);
      if (recording) await recording;
      return this.failed(outcome, candidate, repairable);
    }
    const pluginRun = this.pluginResults?.get(result);
    if (pluginRun && pluginRun !== live) {
      // The tap answered with a plugin-run attempt (a hedge): that attempt is the real one.
      live.release();
      pluginRun.ownedByCore = true;
      return result.type === 'stream' ? { type: 'streaming', result, live: pluginRun } : { type: 'answered', result, live: pluginRun };
    }
    if (result.type === 'stream') {
      // Recorded when the stream ends (CommittedStream); the attempt keeps its timer.
      live.headers = result.headers;
      return { type: 'streaming', result, live };
    }
    const outcome = this.outcome(live, undefined, result);
    live.release();
    const recording = this.record(outcome);
    if (recording) await recording;
    return { type: 'answered', result, live };
  }

  /** Records a plugin-run stream when its reader finishes, unless the core took it over. */
  private async *recordWhenRead(live: LiveAttempt, result: StreamAttemptResult): AsyncGenerator<StreamPart, void, undefined> {
    let finished = result.head.some((p) => p.type === 'finish');
    let error: SwitchyardError | undefined;
    const acc = new ResponseAccumulator();
    try {
      for (;;) {
        const next = await result.rest.next();
        if (next.done) break;
        if (next.value.type === 'finish') finished = true;
        if (next.value.type === 'error') error = next.value.error;
        acc.add(next.value);
        yield next.value;
      }
    } catch (caught) {
      error = this.failureOf(caught, live);
      throw error;
    } finally {
      if (!live.ownedByCore) {
        if (!error && !finished) error = new SwitchyardError('cancelled', 'stream was closed by the plugin that started it');
        await this.recordAfterCommit(live, error, acc);
      }
    }
  }
}

/**
 * One started attempt: its live state (the core's), and the `Attempt` the provider's call tap
 * gets (itself, so the timer callbacks are methods, not closures made per attempt).
 */
class RunningAttempt implements LiveAttempt, Attempt {
  ttftMs: number | undefined = undefined;
  headers: Record<string, string> | undefined = undefined;
  headersArrived = false;
  requestState: LiveAttempt['requestState'] = 'unknown';
  ownedByCore = false;
  readonly startedAt: number;
  readonly stream: boolean;
  readonly initiator: string;
  request: ChatRequest | EmbeddingRequest;
  traceparent?: string;
  answerInfo?: Attempt['answerInfo'] = undefined;
  private readonly timeouts: ReturnType<typeof attemptTimeouts>;
  private readonly clock: RequestContext['clock'];
  private isReleased = false;

  constructor(
    private readonly runner: AttemptRunner,
    readonly number: number,
    readonly candidate: Candidate,
    readonly abort: AbortLink,
    ctx: RequestContext,
    opts: StartOptions,
    private readonly timer: RequestTimer,
    private readonly sharesTimer: boolean,
    private readonly unlink: (() => void) | undefined,
  ) {
    this.clock = ctx.clock;
    this.stream = ctx.stream;
    this.initiator = opts.initiator;
    this.request = opts.request ?? ctx.request;
    this.startedAt = this.clock.now();
    const timeouts = (this.timeouts = attemptTimeouts(candidate.timeouts, (ctx.request as ChatRequest).switchyard?.timeouts));
    if (this.stream) timer.setPhase('headers', Math.min(timeouts.headersMs, timeouts.firstTokenMs), abort, this.startedAt);
    else timer.setPhase(timeouts.firstByteMs !== undefined && timeouts.firstByteMs < timeouts.attemptMs ? 'headers' : 'attempt', Math.min(timeouts.firstByteMs ?? Number.POSITIVE_INFINITY, timeouts.attemptMs), abort, this.startedAt);
  }

  /** The `Attempt` handed to the call tap. */
  get attempt(): Attempt {
    return this;
  }

  /** Made on first read: the core's own links use `abort`. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  headersReceived(): void {
    this.headersArrived = true;
    const now = this.clock.now();
    const elapsed = now - this.startedAt;
    if (this.stream) this.timer.setPhase('first-token', Math.max(0, this.timeouts.firstTokenMs - elapsed), this.abort, now);
    else if (this.timeouts.firstByteMs !== undefined) this.timer.setPhase('attempt', Math.max(0, this.timeouts.attemptMs - elapsed), this.abort, now);
  }

  requestProgress(state: 'pending' | 'written'): void {
    if (this.requestState !== 'written') this.requestState = state;
  }

  release(): void {
    if (this.isReleased) return;
    this.isReleased = true;
    this.unlink?.();
    this.runner.released(this.abort, this.sharesTimer);
    if (!this.sharesTimer) this.timer.dispose();
  }

  chunkReceived(): void {
    this.timer.touch();
  }

  committed(): void {
    const now = this.clock.now();
    this.ttftMs = now - this.startedAt;
    this.timer.setPhase('idle', this.timeouts.idleMs, this.abort, now);
  }
}

/**
 * Runs a provider's `call` hook. Most have one tap, the provider's own codec, and no
 * interceptor: that tap is called directly, since tapable's wrapper around a single tap only
 * adds a promise and its closures to every attempt.
 */
function callTaps(hook: CallHook, attempt: Attempt, ctx: RequestContext): Promise<AttemptResult | undefined> {
  const { taps } = hook;
  if (taps.length === 1 && taps[0].type === 'promise' && hook.interceptors.length === 0) return (taps[0].fn as (attempt: Attempt, ctx: RequestContext) => Promise<AttemptResult | undefined>)(attempt, ctx);
  return hook.promise(attempt, ctx);
}
