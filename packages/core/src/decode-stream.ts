/**
 * A vendor's SSE stream as unified parts: decoded as it comes, or, for a pass-through read by a
 * relay, lazily after its commit point (kept-stream.ts).
 */
import { candidateRef } from './candidate-ref.js';
import { SwitchyardError, toSwitchyardError } from './errors.js';
import type { Attempt, RequestContext } from './contract.js';
import type { DecodedSseEvent, ProviderV1, StreamDecoder } from './provider.js';
import { SseParser, type SseEvent } from './sse.js';
import { Utf8Chunks } from './utf8-chunks.js';
import type { TransportResponse } from './transport.js';
import { isContentPart, type Candidate, type ChatRequest, type StreamPart } from './types.js';
import type { SwitchyardEventBus } from './events.js';
import { keepWireText, unreadEvents } from './wire-events.js';
import { shapedAsJsonObject, type KeptStream } from './kept-stream.js';
import type { PartBatch } from './part-batches.js';
import { responseTooLarge, type ResponseLimits } from './response-limits.js';
import { attributeError } from './attribute-error.js';

/** What decoding a stream needs of the call. */
export interface StreamEnv {
  events: SwitchyardEventBus;
  /** How much of a vendor's answer is read (response-limits.ts). */
  responseLimits: Readonly<ResponseLimits>;
}

/** An event as SSE text again (the vendor's data as it came, without a JSON round trip). */
function sseText(event: SseEvent): string {
  const data = event.data.includes('\n') ? event.data.replace(/\n/g, '\ndata: ') : event.data;
  return event.event ? `event: ${event.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/** Every part of a kept stream text, through a fresh decoder: what a lazy pass-through replays when the answer is needed. */
export function decodeAll(provider: ProviderV1, candidate: Candidate, request: ChatRequest, maxEventChars: number, text: string): StreamPart[] {
  const parser = new SseParser(maxEventChars);
  const decoder = provider.createStreamDecoder(candidate, request);
  const parts: StreamPart[] = [];
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.data === '[DONE]') break;
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      continue;
    }
    (event as DecodedSseEvent).json = json;
    for (const part of decoder.push(event as DecodedSseEvent)) parts.push(part);
    if (decoder.done) break;
  }
  for (const part of decoder.end()) parts.push(part);
  return parts;
}

/** Chat Completions' end (`data: [DONE]`, the space optional) at `start`, always decoded. */
const isDoneAt = (text: string, start: number): boolean => text.startsWith('data: [DONE]', start) || text.startsWith('data:[DONE]', start);

/**
 * The vendor stream as unified parts, a batch per chunk of the body (part-batches.ts). Ends
 * normally only after the vendor's finish signal; a close without it throws `stream-cut`. An
 * idle abort after the finish signal ends it cleanly.
 *
 * A pass-through (the client speaks the vendor's SSE dialect) whose committed stream asked for
 * it reads lazily after the commit point (kept-stream.ts): complete events go on as the vendor's
 * text, and only those `readAfterCommit` names, those not shaped as a whole JSON object, and every
 * event after the finish are decoded.
 */
export async function* decodeStream(env: StreamEnv, provider: ProviderV1, attempt: Attempt, ctx: RequestContext, res: TransportResponse, decoder: StreamDecoder, keepText: boolean, kept: KeptStream | undefined): AsyncGenerator<PartBatch, void, undefined> {
  const { candidate } = attempt;
  const frames = provider.createFrameDecoder?.(candidate, env.responseLimits);
  const sse = frames ? undefined : new SseParser(env.responseLimits.maxEventChars);
  const parser = frames ?? sse!;
  const utf8 = kept ? new Utf8Chunks() : undefined;
  /** Events are split here (`passThrough`) unless a lone CR line end proved the text search unfit; `lazy` once they may go unread. */
  let splitting = kept !== undefined;
  let lazy = false;
  /** A pass-through's text after its last complete event. */
  let tail = '';
  const readAfterCommit = decoder.readAfterCommitIn
    ? (text: string, start: number, end: number) => decoder.readAfterCommitIn!(text, start, end)
    : (text: string, start: number, end: number) => decoder.readAfterCommit!(text.slice(start, end));
  let committed = false;
  let lastForwardable = true;
  let pendingText = '';
  let finished = false;
  let complete = false;
  let sawDone = false;
  let malformed = 0;
  /** The events of the commit chunk after its commit point: decoded, or passed through, once the reader is known. */
  let afterCommit: SseEvent[] | undefined;
  /**
   * Decodes a batch of SSE events synchronously; the async generator only hands parts out.
   * `untilCommit`: a pass-through's chunk stops at its commit point, the rest left in `afterCommit`.
   */
  const decode = (events: SseEvent[], out: StreamPart[], untilCommit = false): StreamPart[] => {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.data === '[DONE]') {
        sawDone = true;
        break;
      }
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        malformed++;
        if (env.events.listenerCount('stream:malformed')) env.events.emit('stream:malformed', { requestId: ctx.id, candidate: candidateRef(candidate), data: event.data.slice(0, 200) });
        continue;
      }
      (event as DecodedSseEvent).json = json;
      const parts = decoder.push(event as DecodedSseEvent);
      if (keepText) keepTexts(event, parts);
      const wasCommitted = committed;
      collect(parts, out);
      if (decoder.done) {
        sawDone = true;
        break;
      }
      if (untilCommit && committed && !wasCommitted && i + 1 < events.length) {
        afterCommit = events.slice(i + 1);
        break;
      }
    }
    return out;
  };
  /** The event's text goes with its first part (and part-less events before it); its other parts are covered by it. */
  const keepTexts = (event: SseEvent, parts: StreamPart[]): void => {
    lastForwardable = decoder.forwardable?.(event as DecodedSseEvent) !== false;
    if (!lastForwardable) {
      pendingText = '';
      return;
    }
    pendingText += sseText(event);
    if (parts.length === 0 || parts[0]!.type === 'error') return;
    keepWireText(parts[0]!, pendingText);
    for (let i = 1; i < parts.length; i++) keepWireText(parts[i]!, '');
    pendingText = '';
  };
  const collect = (parts: StreamPart[], out: StreamPart[]): StreamPart[] => {
    for (const part of parts) {
      if (part.type === 'finish') finished = true;
      else if (part.type === 'error') attributeError(part.error, candidate);
      else if (!committed && isContentPart(part)) committed = true;
      out.push(part);
    }
    return out;
  };
  /**
   * A chunk read lazily (kept-stream.ts), split into events here at blank lines: an event
   * `readAfterCommit` does not name goes on as the vendor's text (one part for a run of them),
   * never a half event; the others are decoded.
   */
  const passThrough = (text: string): PartBatch => {
    let input = tail + text;
    if (input.includes('\r')) {
      input = input.replaceAll('\r\n', '\n');
      const cr = input.indexOf('\r');
      // A CR line end the text search does not know (one split off at the end waits for its LF): the parser takes over.
      if (cr !== -1 && cr !== input.length - 1) {
        splitting = false;
        lazy = false;
        tail = '';
        return decode(sse!.push(input), []);
      }
    }
    const cut = input.lastIndexOf('\n\n');
    const end = cut < 0 ? 0 : cut + 2;
    tail = input.slice(end);
    if (tail.length > env.responseLimits.maxEventChars) throw responseTooLarge('stream event', env.responseLimits.maxEventChars, 'characters');
    const out: StreamPart[] = [];
    /** Where the run of events going on unread starts (-1: none); it ends where the loop is. */
    let unreadFrom = -1;
    for (let at = 0; at < end && !sawDone; ) {
      const from = at;
      at = input.indexOf('\n\n', from) + 2;
      // Asked in place (no event cut out of the chunk), in the order the events come.
      if (!finished && !isDoneAt(input, from) && !readAfterCommit(input, from, at) && shapedAsJsonObject(input, from, at)) {
        if (unreadFrom < 0) unreadFrom = from;
        continue;
      }
      if (unreadFrom >= 0) {
        out.push(unreadRun(input, unreadFrom, from));
        unreadFrom = -1;
      }
      decode(sse!.push(input.slice(from, at)), out);
    }
    if (unreadFrom >= 0 && !finished && !sawDone) out.push(unreadRun(input, unreadFrom, end));
    return out;
  };
  const unreadRun = (input: string, from: number, to: number): StreamPart => {
    const unread = input.slice(from, to);
    kept!.unreadChars += unread.length;
    const part = unreadEvents(pendingText + unread);
    pendingText = '';
    return part;
  };
  /**
   * Whether what comes next may be read lazily: asked first for the events after the commit point
   * in the chunk that holds it (the reader is known only once the head was handed over), then per
   * chunk. Once the committed stream's reader proved a relay; a reader of parts gets every event
   * decoded and nothing kept.
   */
  const readsLazily = (): boolean => {
    if (lazy || !committed || !splitting || finished || !lastForwardable) return lazy;
    if (!kept!.lazy) {
      kept!.release();
      splitting = false;
      return false;
    }
    // The parser holds nothing of an event, so the text from here on can be split at blank lines.
    lazy = sse!.atEventBoundary;
    return lazy;
  };
  try {
    for await (const chunk of res.body) {
      attempt.chunkReceived();
      if (!kept) {
        // An empty batch would cost its reader a generator step for nothing (most chunks hold an event).
        const batch = decode(parser.push(chunk), []);
        if (batch.length > 0) yield batch;
      } else {
        const text = utf8!.decode(chunk);
        kept.keep(text, chunk.byteLength);
        const batch = readsLazily() ? passThrough(text) : decode(sse!.push(text), [], splitting && !committed);
        if (batch.length > 0) yield batch;
        if (afterCommit) {
          const events = afterCommit;
          afterCommit = undefined;
          // For a relay, their text split as any later chunk's (the parser keeps nothing of an event here).
          const rest = readsLazily() ? passThrough(events.map(sseText).join('')) : decode(events, []);
          if (rest.length > 0) yield rest;
        }
      }
      if (sawDone) break;
    }
    // What is left without its blank line is decoded, never forwarded as it is (a half event must not reach the client).
    if (!sawDone) yield decode(kept ? [...sse!.push(tail + utf8!.end()), ...sse!.end()] : parser.end(), []);
    complete = finished;
  } catch (error) {
    const err = toSwitchyardError(error);
    // The answer was complete; the connection just did not close (or sent no [DONE]).
    if (finished && (err.kind === 'idle-timeout' || err.kind === 'network')) {
      yield collect(decoder.end(), []);
      return;
    }
    throw attributeError(err, candidate);
  } finally {
    // A complete answer keeps its keep-alive connection; anything else drops it.
    if (complete && res.release) res.release();
    else res.discard();
  }
  const last = collect(decoder.end(), []);
  if (last.length > 0) yield last;
  if (!finished) {
    throw attributeError(
      new SwitchyardError('stream-cut', `${provider.id} stream ended without a finish signal${malformed ? ` (${malformed} malformed events skipped)` : ''}`),
      candidate,
    );
  }
}
