/**
 * One request's journey through the stages: classify → route → attempts (retry, failover)
 * → degrade → recordRequest. A cancelled request skips retry and degrade. One attempt is the
 * attempt runner's; a stream past its commit point is the committed stream's.
 */
import { attemptRecord, candidateRef } from './candidate-ref.js';
import { onAbortOf } from './abort-link.js';
import { carryWireBody } from './wire-body.js';
import { sleep, type Clock } from './clock.js';
import { isSilentEndpoint, RequestTimer } from './request-timer.js';
import { AttemptRunner, type AnswerResult, type AttemptScope, type AttemptSettlement, type LiveAttempt } from './attempt-runner.js';
import { CommittedStream, type CommittedStreamOwner } from './committed-stream.js';
import { heldBackError } from './held-back.js';
import type { AttemptOutcome, AttemptResult, CallOptions, CandidateHold, Pipeline, PipelineHooks, RequestContext, RequestOutcome, RequestState, RunAttemptOptions, StreamAttemptResult } from './contract.js';
import type { AttemptFailure } from './events.js';
import type { CallerIdentity } from './caller.js';
import { isSwitchyardError, outcomeOf, SwitchyardError, toSwitchyardError } from './errors.js';
import { responseToParts } from './aggregate.js';
import { partsOnce } from './part-batches.js';
import { ChatStream } from './chat-stream.js';
import { defaultClassification, defaultRetryDecision } from './request-defaults.js';
import { retryAfterVerdict } from './retry-after-verdict.js';
import { runHook } from './run-hook.js';
import { withField } from './copy-fields.js';
import { isBackup, streamInfoOf } from './answer-info.js';
import { droppedFor, skippedSummary, type SkippedCandidate } from './translation.js';
import type { Candidate, ChatRequest, ChatResponse, EmbeddingResponse, ResponseInfo, StreamPart } from './types.js';

export type RequestMode = 'chat' | 'stream' | 'embeddings';

/** How the attempts of a request ended, when they did not fail it. */
type RunResult = Exclude<AttemptSettlement, { type: 'failed' }> | { type: 'degraded-answer'; response: ChatResponse };

const noop = () => undefined;

let requestCounter = 0;
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `req_${Date.now().toString(36)}${requestCounter.toString(36).padStart(5, '0')}`;
}

export class RequestRun implements AttemptScope, CommittedStreamOwner {
  readonly ctx: RequestContext;
  readonly timer: RequestTimer;
  readonly attempts: AttemptRunner;
  /** Why the request was aborted (caller, deadline), once it was. */
  private abortedWith: SwitchyardError | undefined;
  /** Created on first use: most requests never need a request-level signal object. */
  private controller: AbortController | undefined;
  private readonly hooks: PipelineHooks;
  private readonly clock: Clock;
  /** An answer a plugin gave in classify or route (`ctx.respond`, a cache hit). */
  early: ChatResponse | undefined;
  private disposed = false;
  private degradedLevel: string | undefined;
  private readonly removeCallerAbort: () => void;

  constructor(
    readonly pipeline: Pipeline,
    private readonly mode: RequestMode,
    request: ChatRequest,
    private readonly configured: readonly Candidate[],
    options: CallOptions,
    defaultDeadlineMs: number,
    /** Deployments left out before any attempt (expressible.ts): the final error names them. */
    private readonly skipped: readonly SkippedCandidate[] = [],
  ) {
    this.hooks = pipeline.hooks;
    this.clock = pipeline.clock;
    const startedAt = this.clock.now();
    const deadlineAt = startedAt + (options.deadlineMs ?? defaultDeadlineMs);
    this.timer = new RequestTimer(this.clock, deadlineAt, (error) => this.abortRequest(error));
    this.attempts = new AttemptRunner(this);
    const caller = options.signal;
    // A caller that says why (a gateway shutting down) is quoted; anything else is a plain cancellation.
    this.removeCallerAbort = caller
      ? onAbortOf(caller, () => this.abortRequest(isSwitchyardError(caller.reason) && caller.reason.kind === 'cancelled' ? caller.reason : new SwitchyardError('cancelled', 'request was cancelled by the caller', { cause: caller.reason })))
      : noop;
    this.ctx = new RunContext(this, options.requestId ?? newRequestId(), mode, request, startedAt, deadlineAt, options.traceparent, options.caller, options.sessionId);
  }

  async execute(): Promise<ChatResponse | ChatStream | EmbeddingResponse> {
    const { ctx } = this;
    const events = this.pipeline.events;
    if (events.listenerCount('request:start')) events.emit('request:start', { requestId: ctx.id, model: ctx.model, stream: ctx.stream });
    // Once a committed stream exists it owns the request: it disposes the run when it ends.
    let streamOwnsRun = false;
    try {
      if (this.hooks.classify.taps.length) {
        const classified = runHook(this.hooks.classify, ctx.classification, ctx);
        ctx.classification = classified instanceof Promise ? await classified : classified;
      }
      if (!this.early) {
        if (this.hooks.route.taps.length) {
          const routed = runHook(this.hooks.route, [...this.configured], ctx.classification, ctx);
          ctx.candidates = routed instanceof Promise ? await routed : routed;
        } else ctx.candidates = [...this.configured];
        ctx.remaining = [...ctx.candidates];
      }
      if (this.early) return this.finishEarly(this.early);
      const result = await this.tryCandidates();
      if (result.type === 'degraded-answer') return this.finishResponse(result.response);
      if (result.type === 'answered') return this.finishAnswer(result.result, result.live);
      streamOwnsRun = true;
      return this.handOverStream(result.live, result.result);
    } catch (error) {
      // Anything uncoded that gets here was thrown by a plugin tap (classify, route, retry, degrade).
      const err = toSwitchyardError(error, 'plugin');
      await this.recordRequest({ ok: false, error: err });
      throw err;
    } finally {
      if (!streamOwnsRun) this.dispose();
    }
  }

  abortReason(): SwitchyardError | undefined {
    return this.abortedWith;
  }

  /** The request's abort signal (plugins' sleeps, ctx.signal). */
  requestSignal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith);
    }
    return this.controller.signal;
  }

  /** Aborts the request and every attempt still running. */
  private abortRequest(reason: SwitchyardError): void {
    if (this.abortedWith) return;
    this.abortedWith = reason;
    this.controller?.abort(reason);
    this.attempts.abortAll(reason);
  }

  /** Releases the request's timer and the caller's abort listener (once). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.timer.dispose();
    this.removeCallerAbort();
  }

  /** `at`: when the answer was there, on the pipeline's clock (read now when not given). */
  private info(candidate: Candidate | undefined, attempts = this.ctx.attempts.length, answerInfo?: Partial<ResponseInfo>, at = this.clock.now()): ResponseInfo {
    const info: ResponseInfo = {
      endpoint: candidate?.endpoint.name ?? 'none',
      deployment: candidate?.deploymentId ?? 'none',
      provider: candidate?.provider ?? 'none',
      attempts,
      latencyMs: at - this.ctx.startedAt,
    };
    if (this.degradedLevel) info.degraded = this.degradedLevel;
    if (candidate && isBackup(candidate, this.pipeline.candidatesFor(this.ctx.model))) info.fallback = candidate.deploymentId;
    if (answerInfo) Object.assign(info, answerInfo);
    if (candidate) {
      const dropped = droppedFor(this.ctx.request as ChatRequest, candidate, this.pipeline.providers.get(candidate.provider));
      if (dropped && dropped.length > 0) {
        info.dropped = dropped;
        this.pipeline.events.emit('field:dropped', { requestId: this.ctx.id, model: this.ctx.model, candidate: candidateRef(candidate), dropped });
      }
    }
    return info;
  }

  private finishEarly(response: ChatResponse): Promise<ChatResponse | ChatStream> {
    return this.finishResponse(withField(response, 'switchyard', Object.assign(this.info(undefined), response.switchyard, { attempts: 0 })));
  }

  private finishAnswer(result: AnswerResult, live: LiveAttempt): Promise<ChatResponse | EmbeddingResponse | ChatStream> {
    const answer = result.response as ChatResponse;
    const info = this.info(live.candidate, undefined, live.attempt.answerInfo);
    const response = withField(answer, 'switchyard', answer.switchyard ? { ...info, ...answer.switchyard } : info);
    carryWireBody(answer, response);
    return this.finishResponse(response);
  }

  /** Records a whole answer; a stream request gets it as a stream (a cache hit, a degrade-stage answer). */
  private async finishResponse(response: ChatResponse): Promise<ChatResponse | ChatStream> {
    const recorded = this.recordRequest({ ok: true, response });
    if (recorded) await recorded;
    if (this.mode !== 'stream') return response;
    return new ChatStream(partsOnce(responseToParts(response)), streamInfoOf(response));
  }

  /** The stream passed its commit point in the provider call: from here the committed stream owns the request. */
  private handOverStream(live: LiveAttempt, result: StreamAttemptResult): ChatStream {
    const { candidate } = live;
    this.timer.releaseRequestDeadline();
    this.pipeline.events.emit('stream:commit', { requestId: this.ctx.id, candidate: candidateRef(candidate), ttftMs: live.ttftMs ?? 0 });
    const committed = new CommittedStream(this, live, result);
    // The committing attempt is not recorded until the stream ends; it counts all the same. The latency is to the commit point the attempt read.
    return committed.toChatStream(this.info(candidate, this.ctx.attempts.length + 1, live.attempt.answerInfo, live.ttftMs === undefined ? undefined : live.startedAt + live.ttftMs));
  }

  /** The request's outcome to the `recordRequest` taps and `request:end` listeners; nothing is built when there are none. */
  recordRequest(partial: Pick<RequestOutcome, 'ok' | 'response' | 'error'> & { latencyMs?: number }): Promise<void> | undefined {
    const tapped = this.hooks.recordRequest.taps.length > 0;
    const events = this.pipeline.events;
    if (!tapped && !events.listenerCount('request:end')) return undefined;
    // Built field by field: a spread of the two partial shapes made this a polymorphic copy.
    const outcome: RequestOutcome = {
      ok: partial.ok,
      response: partial.response,
      error: partial.error,
      model: this.ctx.model,
      stream: this.ctx.stream,
      attempts: this.ctx.attempts,
      latencyMs: partial.latencyMs ?? this.clock.now() - this.ctx.startedAt,
      degraded: this.degradedLevel,
    };
    const recorded = tapped ? runHook(this.hooks.recordRequest, outcome, this.ctx) : undefined;
    if (recorded instanceof Promise) return recorded.then(() => this.emitRequestEnd(outcome));
    this.emitRequestEnd(outcome);
    return undefined;
  }

  private emitRequestEnd(outcome: RequestOutcome): void {
    const events = this.pipeline.events;
    if (!events.listenerCount('request:end')) return;
    // Field by field: `{ ...outcome, requestId }` takes V8's slow path (see copy-fields.ts).
    const { ok, response, error, model, stream, attempts, latencyMs, degraded } = outcome;
    events.emit('request:end', { ok, response, error, model, stream, attempts: attempts.map(attemptRecord), latencyMs, degraded, requestId: this.ctx.id, tier: this.ctx.classification.tier, caller: this.ctx.caller });
  }

  /** The retry / failover loop, then the degrade stage. */
  private async tryCandidates(): Promise<RunResult> {
    const { ctx } = this;
    let current = ctx.remaining.shift();
    let stopError: SwitchyardError | undefined;
    while (current) {
      if (this.abortedWith !== undefined) break;
      ctx.current = current;
      const settled = await this.attempts.run(current, 'core');
      if (settled.type !== 'failed') return settled;
      const outcome = settled.outcome;
      if (outcome.outcome === 'ignored' && this.abortedWith !== undefined) break;
      let decision = (await this.hooks.retry.promise(outcome, ctx)) ?? defaultRetryDecision(outcome);
      const error = outcome.error!;
      if (decision.action === 'retry') {
        const target = decision.candidate ?? current;
        // A silent endpoint is never retried on the same route.
        if (target.id === current.id && isSilentEndpoint(error)) decision = { action: 'next', reason: 'silent endpoint' };
        // A retry that cannot finish before the deadline is not started.
        else if (retryAfterVerdict(decision.delayMs, { timeLeftMs: this.timer.remainingMs() }).action === 'move-on') decision = { action: 'next', reason: 'retry would pass the deadline' };
      }
      if (decision.action === 'retry') {
        const target = decision.candidate ?? current;
        this.emitFailure(outcome, target.id === current.id ? 'retry-same' : 'next-candidate', decision.delayMs, decision.reason ?? error.kind);
        this.pipeline.events.emit('retry', { requestId: ctx.id, attempt: outcome.attempt, candidate: candidateRef(target), delayMs: decision.delayMs, reason: decision.reason ?? error.kind });
        try {
          await sleep(this.clock, decision.delayMs, this.requestSignal());
        } catch {
          break;
        }
        current = target;
        continue;
      }
      if (decision.action === 'fail') {
        this.emitFailure(outcome, 'give-up', 0, decision.reason ?? error.kind);
        stopError = error;
        break;
      }
      if (this.hooks.failover.taps.length) ctx.remaining = await this.hooks.failover.promise(ctx.remaining, outcome, ctx);
      const next = ctx.remaining.shift();
      this.emitFailure(outcome, next ? 'next-candidate' : 'give-up', 0, decision.reason ?? error.kind);
      if (next) this.pipeline.events.emit('failover', { requestId: ctx.id, from: candidateRef(current), to: candidateRef(next), error });
      current = next;
    }
    const failure = this.failureError(stopError);
    // A cancelled request skips the degrade stage.
    if (this.abortedWith && (failure.kind === 'cancelled' || this.abortedWith.kind === 'cancelled')) throw failure;
    return this.degrade(failure);
  }

  /** One `attempt:failed` per failed attempt, with the decision taken after it (logs, traces). */
  private emitFailure(outcome: AttemptOutcome, decision: AttemptFailure['decision'], backoffMs: number, reason: string): void {
    const events = this.pipeline.events;
    if (!events.listenerCount('attempt:failed')) return;
    let level = 0;
    if (decision === 'retry-same') for (const a of this.ctx.attempts) if (a.candidate.id === outcome.candidate.id) level++;
    events.emit('attempt:failed', { requestId: this.ctx.id, attempt: outcome.attempt, candidate: candidateRef(outcome.candidate), error: outcome.error!, decision, backoffMs, level, reason });
  }

  private failureError(stopError?: SwitchyardError): SwitchyardError {
    const errors = this.ctx.errors();
    const reason = this.abortedWith;
    if (reason?.kind === 'cancelled') return attach(reason, errors);
    // A request failure reaches the caller as the vendor said it; so does a limit of its own an attempt met (its key's connection share).
    if (stopError && (outcomeOf(stopError) === 'request-failure' || stopError.kind === 'budget-exhausted')) return attach(stopError, errors);
    if (errors.length === 0) return reason ?? heldBackError(this.ctx.holds, this.ctx.clock.now(), this.ctx.model) ?? new SwitchyardError('no-candidate', `no candidate can serve model "${this.ctx.model}" right now (all filtered out by policies)`, { status: 503 });
    const last = errors[errors.length - 1];
    const summary = errors.map((e) => `${e.deployment ?? e.endpoint ?? '?'}: ${e.kind}${e.status ? ` ${e.status}` : ''}`).join('; ');
    const prefix = reason ? `${reason.message} after ${errors.length} attempt(s)` : `all ${errors.length} attempt(s) failed`;
    const skipped = this.skipped.length > 0 ? `; ${skippedSummary(this.skipped)}` : '';
    // Rate-limited everywhere it went, every other candidate held back for one: a 429 until the soonest cooldown ends.
    const rateLimited = !reason && errors.every((e) => e.kind === 'rate-limit') && this.ctx.holds.every((h) => h.rateLimited);
    const soonest = rateLimited ? heldBackError(this.ctx.holds, this.ctx.clock.now(), this.ctx.model) : undefined;
    return new SwitchyardError('all-candidates-failed', `${prefix} for model "${this.ctx.model}": ${summary}${skipped}`, {
      status: reason ? 504 : rateLimited ? 429 : last.status && last.status >= 500 ? 503 : last.kind === 'rate-limit' ? 429 : 502,
      retryAfterMs: soonest?.retryAfterMs ?? last.retryAfterMs,
      attempts: errors,
      retryable: true,
      cause: last,
    });
  }

  /**
   * The degrade loop: when a level's extra candidates all fail, the stage runs again with the
   * new error so a plugin can offer its next level; no offer, or a level offered twice, ends it.
   */
  private async degrade(error: SwitchyardError): Promise<RunResult> {
    const offered = new Set<string>();
    let failure = error;
    for (;;) {
      const degraded = await this.hooks.degrade.promise(failure, this.ctx);
      if (!degraded || offered.has(degraded.level)) throw failure;
      offered.add(degraded.level);
      this.degradedLevel = degraded.level;
      this.pipeline.events.emit('degraded', { requestId: this.ctx.id, level: degraded.level });
      if ('response' in degraded) {
        return { type: 'degraded-answer', response: { ...degraded.response, switchyard: { ...this.info(undefined), ...degraded.response.switchyard, degraded: degraded.level } } };
      }
      for (const candidate of degraded.candidates) {
        if (this.abortedWith !== undefined) break;
        const settled = await this.attempts.run({ ...candidate, degradeLevel: degraded.level }, 'degrade', degraded.request);
        if (settled.type !== 'failed') return settled;
      }
      failure = this.failureError();
      if (this.abortedWith !== undefined) throw failure;
    }
  }
}

/** The `ctx` plugins see: one object with its methods on the prototype (no closures per request). */
class RunContext implements RequestContext {
  readonly #run: RequestRun;
  readonly kind: 'chat' | 'embeddings';
  readonly model: string;
  readonly stream: boolean;
  readonly clock: Clock;
  readonly random: RequestContext['random'];
  readonly pipeline: Pipeline;
  classification: RequestContext['classification'];
  candidates: Candidate[] = [];
  remaining: Candidate[] = [];
  current?: Candidate;
  readonly attempts: AttemptOutcome[] = [];
  readonly state: RequestState = {};
  readonly holds: CandidateHold[] = [];

  constructor(
    run: RequestRun,
    readonly id: string,
    mode: RequestMode,
    readonly request: ChatRequest,
    readonly startedAt: number,
    readonly deadlineAt: number,
    readonly traceparent: string | undefined,
    readonly caller: CallerIdentity | undefined, readonly sessionId: string | undefined,
  ) {
    this.#run = run;
    this.pipeline = run.pipeline;
    this.clock = run.pipeline.clock;
    this.random = run.pipeline.random;
    this.kind = mode === 'embeddings' ? 'embeddings' : 'chat';
    this.model = request.model;
    this.stream = mode === 'stream';
    this.classification = defaultClassification(request, this.stream);
  }

  get signal(): AbortSignal {
    return this.#run.requestSignal();
  }

  respond(response: ChatResponse): void {
    this.#run.early = response;
  }

  runAttempt(candidate: Candidate, options?: RunAttemptOptions): Promise<AttemptResult> {
    return this.#run.attempts.runForPlugin(candidate, options);
  }

  timeLeft(): number {
    return this.#run.timer.remainingMs();
  }

  errors(): SwitchyardError[] {
    const errors: SwitchyardError[] = [];
    for (const a of this.attempts) if (a.error) errors.push(a.error);
    return errors;
  }
}

function attach(error: SwitchyardError, attempts: SwitchyardError[]): SwitchyardError {
  if (!error.attempts && attempts.length > 0) (error as { attempts?: SwitchyardError[] }).attempts = attempts;
  return error;
}
