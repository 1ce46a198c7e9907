/**
 * One upstream exchange on undici's Dispatcher handler API (the controller API). Compared with
 * undici's `request()`, no AbortSignal goes into undici and there is no AsyncResource and no
 * Readable body stream: the handler keeps the chunks itself, hands them to one async iterator
 * or joins them for `text()`, and aborts through the request's own controller when the
 * pipeline's signal fires (timeouts, caller aborts).
 */
import type { Dispatcher } from 'undici';
import type { TransportRequest, TransportResponse } from './contract.js';
import { onAbortOf, type AbortLink } from './abort-link.js';
import { transportError } from './transport-error.js';
import { responseTooLarge } from './response-limits.js';
import type { SwitchyardError } from './errors.js';
import { DONE } from './iterator-done.js';
import { utf8Text } from './utf8-text.js';

/** Buffered body bytes above which undici is asked to pause the socket until the reader catches up. */
const HIGH_WATER_BYTES = 256 * 1024;
/** After release(): bytes and time the rest of a body may take before the connection is dropped. */
const RELEASE_LIMIT_BYTES = 64 * 1024;
const RELEASE_WAIT_MS = 1000;
/** What leaving a body's loop answers: always done, one settled promise for every body (a reader returns as it ends each stream). */
const RETURNED: Promise<IteratorResult<Uint8Array>> = Promise.resolve(DONE);

type Phase = 'waiting' | 'body' | 'ended' | 'failed';

/** Lower-cased names; repeated headers joined with `, `. */
function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    out[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/** The body as an iterable: a class, since a literal with a computed `[Symbol.asyncIterator]` key is built in V8's runtime (about 0.25 µs a response). */
class ExchangeBody implements AsyncIterable<Uint8Array> {
  constructor(private readonly exchange: UndiciExchange) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.exchange.iterator();
  }
}

export class UndiciExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private phase: Phase = 'waiting';
  private error: unknown;
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  /** The reader waiting for the next chunk (iterator) or for the end (text()). */
  private wake: (() => void) | undefined;
  /** The iterator's read waiting for a chunk: settled by `wakeReader` with it, the end or the failure. */
  private resolveChunk: ((next: IteratorResult<Uint8Array>) => void) | undefined;
  private rejectChunk: ((error: unknown) => void) | undefined;
  /** After release() or discard(): incoming bytes are dropped, and past the limit so is the connection. */
  private dropping = false;
  private dropped = 0;
  /** text() reads the whole body: no pausing, the chunks are joined at the end. */
  private wholeBody = false;
  /** text()'s limit: past it the connection is dropped and text() fails with `tooLarge`. */
  private bodyLimit = Number.POSITIVE_INFINITY;
  private tooLarge: SwitchyardError | undefined;
  private releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** Where the abort comes from: the core's AbortLink when it set one (no AbortSignal is made), else the signal. */
  private readonly source: AbortSignal | AbortLink;
  private readonly unlink: () => void;
  readonly headersReceived: Promise<TransportResponse>;
  private resolveHeaders!: (response: TransportResponse) => void;
  private rejectHeaders!: (error: unknown) => void;

  constructor(req: TransportRequest) {
    this.headersReceived = new Promise((resolve, reject) => {
      this.resolveHeaders = resolve;
      this.rejectHeaders = reject;
    });
    this.source = req.abort ?? req.signal;
    this.unlink = onAbortOf(this.source, () => this.abortWith(this.source.reason));
  }

  /* ---------------------------------------------------------------- undici's side */

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.source.aborted) controller.abort(this.source.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    if (status < 200) return; // informational answers are not the response
    this.phase = 'body';
    this.resolveHeaders(this.response(status, flattenHeaders(headers)));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.dropping) {
      this.dropped += chunk.length;
      if (this.dropped > RELEASE_LIMIT_BYTES) this.abortWith(undefined);
      return;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered > this.bodyLimit) {
      this.tooLarge = responseTooLarge('answer body', this.bodyLimit, 'bytes');
      this.chunks.length = 0;
      this.buffered = 0;
      this.abortWith(this.tooLarge);
      return;
    }
    if (this.buffered > HIGH_WATER_BYTES && !this.wholeBody) controller.pause();
    this.notify();
  }

  onResponseEnd(): void {
    this.phase = 'ended';
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const waiting = this.phase === 'waiting';
    this.phase = 'failed';
    this.error = error;
    this.finish();
    if (waiting) this.rejectHeaders(transportError(error, this.source));
  }

  /* ---------------------------------------------------------------- the reader's side */

  private response(status: number, headers: Record<string, string>): TransportResponse {
    return {
      status,
      headers,
      body: new ExchangeBody(this),
      discard: () => this.discard(),
      release: () => this.release(),
      text: (limitBytes?: number) => this.text(limitBytes),
    };
  }

  /** Leaving the loop early does not drop the connection: the reader decides between discard() and release(). */
  iterator(): AsyncIterator<Uint8Array> {
    return { next: () => this.nextChunk(), return: () => RETURNED };
  }

  /** A chunk that is there is handed out in a resolved promise; otherwise one promise waits for the next, settled by `wakeReader`. */
  private nextChunk(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.take();
    if (chunk) return Promise.resolve({ done: false, value: chunk });
    if (this.phase === 'ended') return Promise.resolve(DONE);
    if (this.phase === 'failed') return Promise.reject(this.failure());
    return new Promise(this.waitForChunk);
  }

  private readonly waitForChunk = (resolve: (next: IteratorResult<Uint8Array>) => void, reject: (error: unknown) => void): void => {
    this.resolveChunk = resolve;
    this.rejectChunk = reject;
    this.wake = this.wakeReader;
  };

  private readonly wakeReader = (): void => {
    const chunk = this.take();
    if (chunk) this.resolveChunk!({ done: false, value: chunk });
    else if (this.phase === 'failed') this.rejectChunk!(this.failure());
    else if (this.phase === 'ended') this.resolveChunk!(DONE);
    else {
      this.wake = this.wakeReader; // woken with nothing new: wait on
      return;
    }
    this.resolveChunk = undefined;
    this.rejectChunk = undefined;
  };

  private async text(limitBytes = Number.POSITIVE_INFINITY): Promise<string> {
    this.wholeBody = true;
    this.bodyLimit = limitBytes;
    if (this.buffered > limitBytes) {
      this.tooLarge = responseTooLarge('answer body', limitBytes, 'bytes');
      this.abortWith(this.tooLarge);
    }
    this.controller?.resume();
    while (this.phase === 'body') await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.tooLarge) throw this.tooLarge;
    if (this.phase === 'failed') throw this.failure();
    const text = utf8Text(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks));
    this.chunks.length = 0;
    this.buffered = 0;
    return text;
  }

  private take(): Buffer | undefined {
    const chunk = this.chunks.shift();
    if (!chunk) return undefined;
    this.buffered -= chunk.length;
    if (this.buffered <= HIGH_WATER_BYTES / 2 && this.controller?.paused) this.controller.resume();
    return chunk;
  }

  private failure(): unknown {
    return transportError(this.error, this.source);
  }

  /** Drops the connection without reading the rest of the body. */
  private discard(): void {
    if (this.phase !== 'body') return;
    this.abortWith(undefined);
  }

  /** The answer is complete; read the rest briefly in the background so the connection is reused. */
  private release(): void {
    if (this.phase !== 'body') return;
    this.dropping = true;
    this.chunks.length = 0;
    this.buffered = 0;
    this.controller?.resume();
    this.releaseTimer = setTimeout(() => this.abortWith(undefined), RELEASE_WAIT_MS);
    this.releaseTimer.unref?.();
  }

  /* ---------------------------------------------------------------- both */

  private abortWith(reason: unknown): void {
    if (this.phase === 'ended' || this.phase === 'failed') return;
    const error = reason instanceof Error ? reason : new Error('request aborted', { cause: reason });
    if (this.controller) this.controller.abort(error);
    // Aborted before undici started the request: onRequestStart aborts it (the signal says so);
    // a discard before start cannot happen (no response yet).
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private finish(): void {
    this.unlink();
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.notify();
  }
}
