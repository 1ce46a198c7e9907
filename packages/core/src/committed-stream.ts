/**
 * A stream after its commit point. The commit point itself is the provider call's
 * (provider-call.ts holds parts back until the first content token, or the end for
 * `commit: 'end'`); the request run hands the stream over here once it has one.
 */
import { candidateRef } from './candidate-ref.js';
import { ResponseAccumulator } from './aggregate.js';
import type { KeptStream } from './kept-stream.js';
import { DecodedStream } from './decode-stream.js';
import type { AttemptRunner, LiveAttempt } from './attempt-runner.js';
import { ChatStream, type StreamInfo } from './chat-stream.js';
import type { RequestContext, RequestOutcome, StreamAttemptResult } from './contract.js';
import { SwitchyardError } from './errors.js';
import { attributeError } from './attribute-error.js';
import type { AttemptFailure } from './events.js';
import type { AttemptOutcome } from './outcomes.js';
import { BatchReader, nextBatchOf, type PartBatch } from './part-batches.js';
import { DONE } from './iterator-done.js';
import type { ChatResponse } from './types.js';

const RESOLVED: Promise<unknown> = Promise.resolve();
const toDone = (): IteratorResult<PartBatch, undefined> => DONE;
const ignore = (): undefined => undefined;

/** What a committed stream needs from its request run. */
export interface CommittedStreamOwner {
  readonly ctx: RequestContext;
  readonly attempts: AttemptRunner;
  /** `partial.latencyMs`: the request's latency as its answer already states it (else the clock is read). */
  recordRequest(partial: Pick<RequestOutcome, 'ok' | 'response' | 'error'> & { latencyMs?: number }): Promise<void> | undefined;
  /** Releases the request's timer and the caller's abort listener. */
  dispose(): void;
}

/**
 * Relays the rest of a committed stream, records the attempt once when it ends (success,
 * failure or abandonment) — the deferred `recordAttempt` — offers a failure to
 * `continueStream`, and otherwise ends with an error part. It owns the request from here on.
 */
export class CommittedStream extends BatchReader {
  private recorded = false;
  private done = false;
  /** The vendor's finish signal was relayed. */
  private finished = false;
  /** Who answered, once the stream was handed out (`toChatStream`). */
  private info!: StreamInfo;
  /** The head is handed out first. */
  private headRead = false;
  /** The stream's end (a failure, a continuation, the records), once the vendor's parts ended. */
  private ending: AsyncGenerator<PartBatch, void, undefined> | undefined;
  /** A clean end's records (`endCleanly`), settled once they are: what is read after it is done. */
  private cleanEnd: Promise<unknown> | undefined;
  private acc: ResponseAccumulator;
  /** A lazy pass-through's kept text (kept-stream.ts): this stream replays it when the answer is needed. */
  private readonly kept: KeptStream | undefined;

  constructor(
    private readonly owner: CommittedStreamOwner,
    private readonly live: LiveAttempt,
    private readonly result: StreamAttemptResult,
  ) {
    super();
    // Created when its attempt started (the clock was read then), unless the vendor says when.
    this.acc = new ResponseAccumulator(Math.floor(live.startedAt / 1000));
    for (const part of result.head) {
      this.acc.add(part);
      if (part.type === 'finish') this.finished = true;
    }
    // The provider call's own stream, unless a plugin wrapped its parts (then they are read as they come).
    this.kept = result.rest instanceof DecodedStream ? result.rest.kept : undefined;
  }

  /**
   * The whole answer so far: a lazy pass-through's parts do not hold the text forwarded unread,
   * so it is decoded from the kept text now. Past `continuation.maxBytes` it cannot be: the
   * answer is counted by the characters forwarded (an estimate for billing).
   */
  private readWholeAnswer(): boolean {
    const { kept } = this;
    if (!kept?.partial) return true;
    const parts = kept.replay();
    kept.release();
    if (!parts) {
      this.acc.unreadChars = kept.unreadChars;
      return false;
    }
    const acc = new ResponseAccumulator(this.acc.created);
    for (const part of parts) acc.add(part);
    // What the parts decoded on the way said last (a usage or finish after the kept text) stays.
    acc.usage ??= this.acc.usage;
    acc.finishReason ??= this.acc.finishReason;
    this.acc = acc;
    return true;
  }

  /** `info`: who answered, made for this stream; the model the head named (else the deployment's) is set on it, not on a copy (copy-fields.ts). */
  toChatStream(answered: Omit<StreamInfo, 'model'>): ChatStream {
    const info = answered as StreamInfo;
    info.model = this.acc.model || this.live.candidate.model;
    const { kept } = this;
    // A relay writes the vendor's text: the events after the commit point need not be decoded for it.
    const relayed = kept ? () => void (kept.lazy = true) : undefined;
    this.info = info;
    return new ChatStream(this, info, () => this.abandon(), relayed, true);
  }

  private record(error?: SwitchyardError): Promise<void> | undefined {
    if (this.recorded) return undefined;
    this.recorded = true;
    return this.owner.attempts.recordAfterCommit(this.live, error, this.acc);
  }

  private attemptFailed(error: SwitchyardError, decision: AttemptFailure['decision'], reason: string): void {
    const { events } = this.owner.ctx.pipeline;
    if (events.listenerCount('attempt:failed')) events.emit('attempt:failed', { requestId: this.owner.ctx.id, attempt: this.live.number, candidate: candidateRef(this.live.candidate), error, decision, backoffMs: 0, level: 0, reason });
  }

  /** The consumer stopped reading: abort the upstream; a cancellation counts against nobody. */
  private async abandon(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const cancelled = new SwitchyardError('cancelled', 'stream was closed by the consumer');
    this.live.abort.abort(cancelled);
    await this.result.rest.return?.(undefined);
    // Billed by the output seen when the vendor reported no usage: the text forwarded unread counts too.
    if (!this.acc.usage) this.readWholeAnswer();
    this.kept?.release();
    await this.record(cancelled);
    // The request ends here too: observers count it as cancelled, never as a success.
    await this.owner.recordRequest({ ok: false, error: cancelled });
    this.owner.dispose();
  }

  /**
   * The parts, a batch per vendor chunk (part-batches.ts), each checked in the vendor's own `then`
   * (no generator step per chunk); a failure ends them after the parts before it, and the end is
   * `end()`'s.
   */
  protected read(): Promise<IteratorResult<PartBatch, undefined>> {
    if (this.ending) return this.ending.next() as Promise<IteratorResult<PartBatch, undefined>>;
    if (this.cleanEnd) return this.cleanEnd.then(toDone, toDone);
    if (!this.headRead) {
      this.headRead = true;
      const { head } = this.result;
      if (head.length > 0) return Promise.resolve({ done: false, value: head });
    }
    return nextBatchOf(this.result.rest).then(this.onBatch, this.onFailure);
  }

  protected async close(): Promise<void> {
    // Left while reading the end: its own cleanup (an abandonment unless the stream was done).
    if (this.ending) await this.ending.return(undefined);
    if (this.cleanEnd) await this.cleanEnd.then(undefined, ignore);
    // An end not started has no cleanup to run.
    if (!this.done) await this.abandon();
  }

  private readonly onBatch = (next: IteratorResult<PartBatch, undefined>): IteratorResult<PartBatch, undefined> | Promise<IteratorResult<PartBatch, undefined>> => {
    if (this.done) return DONE;
    if (next.done) return this.finished && this.acc.usage && !this.owner.ctx.classification.keepAnswer ? this.endCleanly() : this.endWith(undefined);
    try {
      return this.relay(next.value);
    } catch (error) {
      // Nothing above this stream cancels it (ChatStream's `bodyEndsItself`): a fault here ends it as a failure would.
      return this.onFailure(error);
    }
  };

  private relay(batch: PartBatch): IteratorResult<PartBatch, undefined> | Promise<IteratorResult<PartBatch, undefined>> {
    for (let i = 0; i < batch.length; i++) {
      const part = batch[i]!;
      if (part.type === 'error') {
        const failure = this.owner.attempts.failureOf(part.error, this.live);
        if (i === 0) return this.endWith(failure);
        this.ending = this.end(failure);
        return { done: false, value: batch.slice(0, i) };
      }
      this.acc.add(part);
      if (part.type === 'finish') this.finished = true;
    }
    return { done: false, value: batch };
  }

  private readonly onFailure = (error: unknown): Promise<IteratorResult<PartBatch, undefined>> | IteratorResult<PartBatch, undefined> => {
    if (this.done) return DONE;
    return this.endWith(this.owner.attempts.failureOf(error, this.live));
  };

  private endWith(failure: SwitchyardError | undefined): Promise<IteratorResult<PartBatch, undefined>> {
    this.ending = this.end(failure);
    return this.ending.next() as Promise<IteratorResult<PartBatch, undefined>>;
  }

  /**
   * The vendor finished and reported its usage, and no plugin wants the whole answer: the
   * records of `end()`'s success, without its generator. When no record hook waits, the stream
   * ends in the turn its last batch was read.
   */
  private endCleanly(): IteratorResult<PartBatch, undefined> | Promise<IteratorResult<PartBatch, undefined>> {
    this.kept?.release();
    this.cleanEnd = RESOLVED;
    let recorded: Promise<void> | undefined;
    try {
      recorded = this.record(undefined);
      if (!recorded) return this.answered();
    } catch (error) {
      // A record hook or the request's records threw: the stream rejects, as end()'s generator would.
      recorded = Promise.reject(error);
    }
    const ended = recorded.then(this.answered, this.endFailed);
    this.cleanEnd = ended;
    return ended;
  }

  private readonly answered = (): IteratorResult<PartBatch, undefined> | Promise<IteratorResult<PartBatch, undefined>> => {
    // The consumer left while a record hook waited: the abandonment recorded the request.
    if (this.done) return DONE;
    const { owner } = this;
    this.done = true;
    const response = this.response(undefined);
    const recorded = owner.recordRequest({ ok: true, response, latencyMs: response.switchyard?.latencyMs });
    if (recorded) return recorded.then(this.disposed, this.endFailed);
    return this.disposed();
  };

  private readonly disposed = (): IteratorResult<PartBatch, undefined> => {
    this.owner.dispose();
    return DONE;
  };

  /** What the end generator's `finally` does for a record that failed: the stream is abandoned, the request released, the error goes on. */
  private readonly endFailed = async (error: unknown): Promise<never> => {
    if (!this.done) await this.abandon();
    this.owner.dispose();
    throw error;
  };

  /** The whole answer the stream ended with; `continuedBy`: the attempt that finished it after a cut. */
  private response(continuedBy: AttemptOutcome | undefined): ChatResponse {
    const { ctx } = this.owner;
    const { info } = this;
    const response = this.acc.toResponse();
    // Not `{ ...info, attempts, latencyMs }`: see copy-fields.ts.
    response.switchyard = Object.assign({}, info, { attempts: ctx.attempts.length, latencyMs: ctx.clock.now() - ctx.startedAt });
    if (continuedBy) {
      // Booked to the deployment that finished the answer, one endpoint/model pair; the cut one is named beside it.
      const { candidate } = continuedBy;
      response.model = candidate.model;
      Object.assign(response.switchyard, { endpoint: candidate.endpoint.name, deployment: candidate.deploymentId, provider: candidate.provider, continuedFrom: this.live.candidate.deploymentId });
      info.continuedOn = candidate.deploymentId;
    }
    return response;
  }

  /** The vendor's parts ended, with `failure` or without: records, a continuation, the request's outcome. */
  private async *end(cause: SwitchyardError | undefined): AsyncGenerator<PartBatch, void, undefined> {
    const { owner } = this;
    const { ctx } = owner;
    let failure = cause;
    try {
      if (!failure && !this.finished) failure = attributeError(new SwitchyardError('stream-cut', 'stream ended without a finish signal'), this.live.candidate);
      // Release the upstream body now (an error event may leave the connection open).
      if (failure) await this.result.rest.return?.(undefined);
      // A cut needs the text so far (continuation, the output billed); an answer without usage is billed by it; a plugin may want it.
      const known = failure || !this.acc.usage || ctx.classification.keepAnswer ? this.readWholeAnswer() : true;
      this.kept?.release();
      await this.record(failure);
      let continuedBy: AttemptOutcome | undefined;
      if (failure && failure.kind !== 'cancelled') {
        const cut = failure;
        // Past continuation.maxBytes the text so far is unknown: no continuation could match what the client holds.
        const continuation = !known ? undefined : await ctx.pipeline.hooks.continueStream.promise({ error: failure, candidate: this.live.candidate, partial: this.acc.toResponse() }, ctx);
        // The cut attempt is a failed attempt like any other (its log line, its trace event).
        const reason = continuation ? 'stream cut after commit: continued elsewhere' : known ? 'stream cut after commit: no candidate can continue it' : 'stream cut after commit past continuation.maxBytes: not continued';
        this.attemptFailed(cut, continuation ? 'next-candidate' : 'give-up', reason);
        if (continuation) {
          let continued = false;
          try {
            for await (const part of continuation) {
              if (part.type === 'error') throw part.error;
              this.acc.add(part);
              if (part.type === 'finish') continued = true;
              yield [part];
            }
          } catch (error) {
            // The caller learns about the original failure, never a fallback's prefill rejection.
            ctx.pipeline.events.emit('plugin-error', { plugin: 'continueStream', stage: 'continueStream', error });
          }
          if (continued) {
            failure = undefined;
            continuedBy = ctx.attempts.findLast((a) => a.ok && a.attempt > this.live.number);
          }
        }
      }
      // The consumer left while the end waited (a record hook, a continuation): the abandonment recorded the request.
      if (this.done) return;
      this.done = true;
      if (failure) {
        // Recorded and released before the error part: a consumer that stops at the error never resumes us.
        await owner.recordRequest({ ok: false, error: failure });
        owner.dispose();
        yield [{ type: 'error', error: failure }];
        return;
      }
      await owner.recordRequest({ ok: true, response: this.response(continuedBy) });
    } finally {
      if (!this.done) await this.abandon();
      // Every end releases the request's timer and abort listener, a record that threw included.
      owner.dispose();
    }
  }
}
