/**
 * Lazy pass-through (issue 41). When a client speaks the vendor's dialect, a stream's events
 * after its commit point reach the client as the vendor wrote them (wire-events.ts): most of them
 * (text deltas) are needed by nobody else, so the provider call stops decoding them and only
 * *keeps* their text here. The events a decision needs (the finish signal, usage, errors) are
 * still decoded as they come (`StreamDecoder.readAfterCommit` says which).
 *
 * The kept text is read only when something needs the whole answer: the committed stream
 * replays it through a fresh decoder when the stream is cut (continuation needs the text so
 * far, billing the output seen), when the vendor reported no usage, or when a plugin asked for
 * the answer (`Classification.keepAnswer`: the cache storing it). It is bounded by
 * `continuation.maxBytes`; past it the answer can no longer be replayed, and a cut ends the
 * stream with its error instead of a continuation. Released when the stream ends.
 *
 * Lazy reading starts only when the committed stream's reader is a relay that writes the
 * vendor's text (`ChatStream.batches()`, the gateway): a caller iterating parts gets every part
 * decoded, and so does a plugin that wraps a stream's parts (a hedge, a continuation). It starts
 * after the commit point, within the chunk that holds it (decode-stream.ts).
 */
import type { DecodedSseEvent, ProviderV1 } from './provider.js';
import { SseParser } from './sse.js';
import type { Candidate, ChatRequest, StreamPart } from './types.js';

const isBlank = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13;

/**
 * Whether an event's text (`…data: …\n\n`) is shaped as one whole JSON object: its data starts
 * with `{` and the event ends with `}`. Only such an event may go unread; one that is not (a
 * chunk cut short, a proxy's HTML, a bare word) is decoded, so a malformed event is still caught
 * (`stream:malformed`, a cut) instead of reaching the client. A scan of its two ends: nothing is
 * parsed.
 */
export function shapedAsJsonObject(eventText: string, start = 0, end = eventText.length): boolean {
  let last = end - 1;
  while (last >= start && isBlank(eventText.charCodeAt(last))) last--;
  if (last < start || eventText.charCodeAt(last) !== 125 /* } */) return false;
  const data = eventText.indexOf('data:', start);
  if (data === -1 || data >= last) return false;
  let first = data + 5;
  while (first < last && isBlank(eventText.charCodeAt(first))) first++;
  return eventText.charCodeAt(first) === 123 /* { */;
}

/** Default for `continuation.maxBytes`: the stream text kept for a continuation after a cut. */
export const DEFAULT_CONTINUATION_MAX_BYTES = 1024 * 1024;

export class KeptStream {
  private text: string | undefined = '';
  private bytes = 0;
  /** A relay reads the stream and the committed stream replays it when needed: events after the commit point may go unread. */
  lazy = false;
  /** Characters of events forwarded without being decoded: what an answer past the limit is estimated from. */
  unreadChars = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly decodeAll: (text: string) => StreamPart[],
  ) {}

  /** The vendor's text of one body chunk (`bytes` long on the wire). */
  keep(text: string, bytes: number): void {
    if (this.text === undefined) return;
    this.bytes += bytes;
    if (this.bytes > this.maxBytes) this.text = undefined;
    else this.text += text;
  }

  /** Some event went to the client undecoded: the parts seen so far are not the whole answer. */
  get partial(): boolean {
    return this.unreadChars > 0;
  }

  /** Every part of the stream so far, decoded from the kept text; undefined past the limit. */
  replay(): StreamPart[] | undefined {
    return this.text === undefined ? undefined : this.decodeAll(this.text);
  }

  release(): void {
    this.text = undefined;
  }
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
