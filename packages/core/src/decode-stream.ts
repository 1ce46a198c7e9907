/**
 * A vendor's SSE stream as unified parts: decoded as it comes, or, for a pass-through read by a
 * relay, lazily after its commit point (kept-stream.ts).
 */
import { candidateRef } from './candidate-ref.js';
import { SwitchyardError, toSwitchyardError } from './errors.js';
import type { Attempt, RequestContext } from './contract.js';
import type { DecodedSseEvent, FrameDecoder, ProviderV1, StreamDecoder } from './provider.js';
import { SseParser, sseTextOf, type SseEvent } from './sse.js';
import { Utf8Chunks } from './utf8-chunks.js';
import type { TransportResponse } from './transport.js';
import { isContentPart, type StreamPart } from './types.js';
import type { SwitchyardEventBus } from './events.js';
import { keepWireText, unreadEvents } from './wire-events.js';
import { shapedAsJsonObject, type KeptStream } from './kept-stream.js';
import { BatchReader, type PartBatch } from './part-batches.js';
import { DONE } from './iterator-done.js';
import { responseTooLarge, type ResponseLimits } from './response-limits.js';
import { attributeError } from './attribute-error.js';

/** What decoding a stream needs of the call. */
export interface StreamEnv {
  events: SwitchyardEventBus;
  /** How much of a vendor's answer is read (response-limits.ts). */
  responseLimits: Readonly<ResponseLimits>;
}

/** A body iterator's `return()` is not waited for (the response is discarded or released besides); a failure of it is nobody's. */
function ignoreRejection(done: Promise<unknown> | undefined): void {
  done?.then(undefined, () => undefined);
}

/**
 * The vendor stream as unified parts, a batch per chunk of the body (part-batches.ts). Ends
 * normally only after the vendor's finish signal; a close without it throws `stream-cut`. An
 * idle abort after the finish signal ends it cleanly.
 *
 * A pass-through (the client speaks the vendor's SSE dialect) whose committed stream asked for
 * it reads lazily after the commit point (kept-stream.ts): complete events go on as the vendor's
 * text, and only those `readAfterCommit` names, those not shaped as a whole JSON object, and every
 * event after the finish are decoded.
 *
 * A class and not an async generator: a chunk is decoded in the body's own `then`, and its parts
 * handed out in the same turn (a generator's `await` and `yield` cost each chunk several promises
 * and microtask turns, at every layer of the relay).
 */
export class DecodedStream extends BatchReader {
  private readonly body: AsyncIterator<Uint8Array>;
  private readonly parser: FrameDecoder | SseParser;
  private readonly sse: SseParser | undefined;
  private readonly utf8: Utf8Chunks | undefined;
  private readonly readAfterCommit: (text: string, start: number, end: number) => boolean;
  /** Events are split here (`passThrough`) unless a lone CR line end proved the text search unfit; `lazy` once they may go unread. */
  private splitting: boolean;
  private lazy = false;
  /** A pass-through's text after its last complete event. */
  private tail = '';
  private committed = false;
  private lastForwardable = true;
  private pendingText = '';
  private finished = false;
  private sawDone = false;
  private malformed = 0;
  /**
   * What the commit chunk holds after its commit point, decoded or passed through once the reader
   * is known: its text as it came (`decodeUntilCommit`), or its events when the parser had to split
   * the chunk.
   */
  private afterCommit: string | SseEvent[] | undefined;
  /** Batches decided and not yet read (a chunk's second batch, the end's). */
  private readonly ready: PartBatch[] = [];
  /** What the stream ends with once `ready` is read: done, or this error. */
  private ending: { error?: unknown } | undefined;
  /** The body was let go (kept for reuse after a complete answer, dropped otherwise). */
  private bodyClosed = false;

  constructor(
    private readonly env: StreamEnv,
    private readonly provider: ProviderV1,
    private readonly attempt: Attempt,
    private readonly ctx: RequestContext,
    private readonly res: TransportResponse,
    private readonly decoder: StreamDecoder,
    private readonly keepText: boolean,
    /** A lazy pass-through's kept text (kept-stream.ts), which the committed stream replays when the answer is needed. */
    readonly kept: KeptStream | undefined,
  ) {
    super();
    this.body = res.body[Symbol.asyncIterator]();
    const frames = provider.createFrameDecoder?.(attempt.candidate, env.responseLimits);
    this.sse = frames ? undefined : new SseParser(env.responseLimits.maxEventChars);
    this.parser = frames ?? this.sse!;
    this.utf8 = kept ? new Utf8Chunks() : undefined;
    this.splitting = kept !== undefined;
    this.readAfterCommit = decoder.readAfterCommitIn
      ? (text, start, end) => decoder.readAfterCommitIn!(text, start, end)
      : (text, start, end) => decoder.readAfterCommit!(text.slice(start, end));
  }

  protected read(): Promise<IteratorResult<PartBatch, undefined>> {
    if (this.afterCommit && this.ready.length === 0) this.readAfterCommitEvents();
    const settled = this.settled();
    if (settled) return Promise.resolve(settled);
    if (this.ending) return Promise.reject(this.takeError());
    return this.body.next().then(this.onChunk, this.onFailure);
  }

  protected close(): void {
    this.ready.length = 0;
    this.afterCommit = undefined;
    this.ending = {};
    if (this.bodyClosed) return;
    ignoreRejection(this.body.return?.());
    this.closeBody(false);
  }

  /** A batch ready to hand out, or done; undefined when the body must be read (or the stream fails). */
  private settled(): IteratorResult<PartBatch, undefined> | undefined {
    const batch = this.ready.shift();
    if (batch) return { done: false, value: batch };
    if (this.ending && this.ending.error === undefined) return DONE;
    return undefined;
  }

  private takeError(): unknown {
    const { error } = this.ending!;
    this.ending = {};
    return error;
  }

  private readonly onChunk = (next: IteratorResult<Uint8Array>): IteratorResult<PartBatch, undefined> | Promise<IteratorResult<PartBatch, undefined>> => {
    // Closed while the body was read (the consumer left): nothing more.
    if (this.ending) return DONE;
    try {
      if (next.done) this.end();
      else {
        this.chunk(next.value);
        if (this.sawDone) this.stopReading();
      }
    } catch (error) {
      this.fail(error);
    }
    const settled = this.settled();
    if (settled) return settled;
    if (this.ending) throw this.takeError();
    // A chunk without a whole event: read on.
    return this.body.next().then(this.onChunk, this.onFailure);
  };

  private readonly onFailure = (error: unknown): IteratorResult<PartBatch, undefined> => {
    if (this.ending) return DONE;
    this.fail(error);
    const settled = this.settled();
    if (settled) return settled;
    throw this.takeError();
  };

  private push(batch: PartBatch): void {
    // An empty batch would cost its reader a step for nothing (most chunks hold an event).
    if (batch.length > 0) this.ready.push(batch);
  }

  private chunk(chunk: Uint8Array): void {
    this.attempt.chunkReceived();
    const { kept } = this;
    if (!kept) {
      this.push(this.decode(this.parser.push(chunk), []));
      return;
    }
    const text = this.utf8!.decode(chunk);
    kept.keep(text, chunk.byteLength);
    if (this.readsLazily()) this.push(this.passThrough(text));
    else if (this.splitting && !this.committed) this.push(this.decodeUntilCommit(text));
    else this.push(this.decode(this.sse!.push(text), []));
  }

  /**
   * A pass-through's chunk before its commit point: its events are parsed one at a time up to the
   * commit point (but those the decoder calls `partlessIn`), and the text after it is left as it
   * came (`afterCommit`) for `passThrough`. A chunk the text search cannot split (a lone CR line
   * end, the parser holding part of an event) goes to the parser whole.
   */
  private decodeUntilCommit(text: string): PartBatch {
    const sse = this.sse!;
    let input = text;
    if (input.includes('\r')) input = input.replaceAll('\r\n', '\n');
    if (!sse.atEventBoundary || input.includes('\r')) return this.decode(sse.push(text), [], true);
    const out: StreamPart[] = [];
    let at = 0;
    while (!this.committed && !this.sawDone) {
      const end = input.indexOf('\n\n', at) + 2;
      if (end < 2) break;
      // An event that yields no part goes with the next part's text, unparsed.
      if (this.decoder.partlessIn?.(input, at, end) && shapedAsJsonObject(input, at, end)) this.pendingText += input.slice(at, end);
      else this.decode(sse.push(input.slice(at, end)), out);
      at = end;
    }
    if (at < input.length && !this.sawDone) {
      // After the commit point: kept for the reader; before it, an event the next chunk ends: the parser holds it.
      if (this.committed) this.afterCommit = input.slice(at);
      else sse.push(input.slice(at));
    }
    return out;
  }

  /**
   * The events after the commit point in the chunk that holds it, read once the head was handed
   * over (the committed stream's reader is known then): for a relay, their text split as any later
   * chunk's (the parser keeps nothing of an event here).
   */
  private readAfterCommitEvents(): void {
    const rest = this.afterCommit!;
    this.afterCommit = undefined;
    try {
      if (typeof rest === 'string') this.push(this.readsLazily() ? this.passThrough(rest) : this.decode(this.sse!.push(rest), []));
      else this.push(this.readsLazily() ? this.passThrough(rest.map(sseTextOf).join('')) : this.decode(rest, []));
      if (this.sawDone) this.stopReading();
    } catch (error) {
      this.fail(error);
    }
  }

  /** The vendor sent its end (`[DONE]`, a decoder's terminal event): the body is not read further. */
  private stopReading(): void {
    ignoreRejection(this.body.return?.());
    this.end();
  }

  /** The body ended (or sent its end): what is left, the decoder's last parts, and a cut without a finish. */
  private end(): void {
    // What is left without its blank line is decoded, never forwarded as it is (a half event must not reach the client).
    if (!this.sawDone) this.push(this.decode(this.kept ? [...this.sse!.push(this.tail + this.utf8!.end()), ...this.sse!.end()] : this.parser.end(), []));
    // A complete answer keeps its keep-alive connection; anything else drops it.
    this.closeBody(this.finished);
    this.ending = {};
    this.push(this.collect(this.decoder.end(), []));
    if (!this.finished) {
      this.ending.error = attributeError(
        new SwitchyardError('stream-cut', `${this.provider.id} stream ended without a finish signal${this.malformed ? ` (${this.malformed} malformed events skipped)` : ''}`),
        this.attempt.candidate,
      );
    }
  }

  private fail(error: unknown): void {
    if (this.ending) {
      // The decoder's last parts threw: the error as it is.
      this.ending.error ??= error;
      return;
    }
    this.closeBody(false);
    this.ending = {};
    const err = toSwitchyardError(error);
    // The answer was complete; the connection just did not close (or sent no [DONE]).
    if (this.finished && (err.kind === 'idle-timeout' || err.kind === 'network')) {
      this.push(this.collect(this.decoder.end(), []));
      return;
    }
    this.ending.error = attributeError(err, this.attempt.candidate);
  }

  private closeBody(complete: boolean): void {
    if (this.bodyClosed) return;
    this.bodyClosed = true;
    if (complete && this.res.release) this.res.release();
    else this.res.discard();
  }

  /**
   * Decodes a batch of SSE events synchronously.
   * `untilCommit`: a pass-through's chunk stops at its commit point, the rest left in `afterCommit`.
   */
  private decode(events: SseEvent[], out: StreamPart[], untilCommit = false): StreamPart[] {
    const { decoder, env } = this;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.data === '[DONE]') {
        this.sawDone = true;
        break;
      }
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        this.malformed++;
        if (env.events.listenerCount('stream:malformed')) env.events.emit('stream:malformed', { requestId: this.ctx.id, candidate: candidateRef(this.attempt.candidate), data: event.data.slice(0, 200) });
        continue;
      }
      (event as DecodedSseEvent).json = json;
      const parts = decoder.push(event as DecodedSseEvent);
      if (this.keepText) this.keepTexts(event, parts);
      const wasCommitted = this.committed;
      this.collect(parts, out);
      if (decoder.done) {
        this.sawDone = true;
        break;
      }
      if (untilCommit && this.committed && !wasCommitted && i + 1 < events.length) {
        this.afterCommit = events.slice(i + 1);
        break;
      }
    }
    return out;
  }

  /** The event's text goes with its first part (and part-less events before it); its other parts are covered by it. */
  private keepTexts(event: SseEvent, parts: StreamPart[]): void {
    this.lastForwardable = this.decoder.forwardable?.(event as DecodedSseEvent) !== false;
    if (!this.lastForwardable) {
      this.pendingText = '';
      return;
    }
    this.pendingText += sseTextOf(event);
    if (parts.length === 0 || parts[0]!.type === 'error') return;
    keepWireText(parts[0]!, this.pendingText);
    for (let i = 1; i < parts.length; i++) keepWireText(parts[i]!, '');
    this.pendingText = '';
  }

  private collect(parts: StreamPart[], out: StreamPart[]): StreamPart[] {
    for (const part of parts) {
      if (part.type === 'finish') this.finished = true;
      else if (part.type === 'error') attributeError(part.error, this.attempt.candidate);
      else if (!this.committed && isContentPart(part)) this.committed = true;
      out.push(part);
    }
    return out;
  }

  /**
   * A chunk read lazily (kept-stream.ts), split into events here at blank lines: an event
   * `readAfterCommit` does not name goes on as the vendor's text (one part for a run of them),
   * never a half event; the others are decoded.
   */
  private passThrough(text: string): PartBatch {
    let input = this.tail + text;
    if (input.includes('\r')) {
      input = input.replaceAll('\r\n', '\n');
      const cr = input.indexOf('\r');
      // A CR line end the text search does not know (one split off at the end waits for its LF): the parser takes over.
      if (cr !== -1 && cr !== input.length - 1) {
        this.splitting = false;
        this.lazy = false;
        this.tail = '';
        return this.decode(this.sse!.push(input), []);
      }
    }
    const cut = input.lastIndexOf('\n\n');
    const end = cut < 0 ? 0 : cut + 2;
    this.tail = input.slice(end);
    if (this.tail.length > this.env.responseLimits.maxEventChars) throw responseTooLarge('stream event', this.env.responseLimits.maxEventChars, 'characters');
    const out: StreamPart[] = [];
    /** Where the run of events going on unread starts (-1: none); it ends where the loop is. */
    let unreadFrom = -1;
    for (let at = 0; at < end && !this.sawDone; ) {
      const from = at;
      at = input.indexOf('\n\n', from) + 2;
      // Asked in place (no event cut out of the chunk), in the order the events come. Chat
      // Completions' end (`data: [DONE]`) is not shaped as an object, so it is always decoded.
      if (!this.finished && shapedAsJsonObject(input, from, at) && !this.readAfterCommit(input, from, at)) {
        if (unreadFrom < 0) unreadFrom = from;
        continue;
      }
      if (unreadFrom >= 0) {
        out.push(this.unreadRun(input, unreadFrom, from));
        unreadFrom = -1;
      }
      this.decode(this.sse!.push(input.slice(from, at)), out);
    }
    if (unreadFrom >= 0 && !this.finished && !this.sawDone) out.push(this.unreadRun(input, unreadFrom, end));
    return out;
  }

  private unreadRun(input: string, from: number, to: number): StreamPart {
    const unread = input.slice(from, to);
    this.kept!.unreadChars += unread.length;
    const part = unreadEvents(this.pendingText + unread);
    this.pendingText = '';
    return part;
  }

  /**
   * Whether what comes next may be read lazily: asked first for the events after the commit point
   * in the chunk that holds it (the reader is known only once the head was handed over), then per
   * chunk. Once the committed stream's reader proved a relay; a reader of parts gets every event
   * decoded and nothing kept.
   */
  private readsLazily(): boolean {
    if (this.lazy || !this.committed || !this.splitting || this.finished || !this.lastForwardable) return this.lazy;
    if (!this.kept!.lazy) {
      this.kept!.release();
      this.splitting = false;
      return false;
    }
    // The parser holds nothing of an event, so the text from here on can be split at blank lines.
    this.lazy = this.sse!.atEventBoundary;
    return this.lazy;
  }
}
