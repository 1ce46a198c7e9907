/**
 * Server-sent events parser (WHATWG rules): LF, CRLF and CR line ends, comments, `event:`,
 * `id:`, multi-line `data:`, and UTF-8 sequences split across chunks. It never throws on odd
 * input; lines it cannot use are counted in `ignoredLines`. One event past `maxEventChars`
 * is the one thing it throws on (a vendor that streams an endless event).
 */
import { responseTooLarge } from './response-limits.js';
import { Utf8Chunks } from './utf8-chunks.js';
import { startsAt } from './text-at.js';

export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

export class SseParser {
  private readonly decoder = new Utf8Chunks();
  private buffer = '';
  private dataLines: string[] = [];
  /** Characters in `dataLines`. */
  private dataChars = 0;

  /** `maxEventChars`: one event (its data and an unended line) past it throws a coded `server` error. */
  constructor(private readonly maxEventChars = Number.POSITIVE_INFINITY) {}
  private eventName: string | undefined;
  private lastId: string | undefined;
  private sawField = false;
  /** Comment lines seen (`: keep-alive`): liveness without content. */
  comments = 0;
  /** Lines with a field name this parser does not know. */
  ignoredLines = 0;
  /** Skip a CR-LF pair that was split across two chunks. */
  private pendingCR = false;

  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk);
    return this.consume(text, false);
  }

  /** Nothing of an event is held back: the next text starts a new event (a reader may split the stream itself from here). */
  get atEventBoundary(): boolean {
    return this.buffer.length === 0 && !this.sawField && !this.pendingCR;
  }

  end(): SseEvent[] {
    const rest = this.decoder.end();
    const events = this.consume(rest, true);
    return events;
  }

  private consume(text: string, final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    let input = text;
    if (this.pendingCR && input.startsWith('\n')) input = input.slice(1);
    this.pendingCR = false;
    this.buffer += input;
    let start = 0;
    const buf = this.buffer;
    let cr = buf.indexOf('\r');
    if (cr === -1) {
      // LF-only text (what vendors send): the native search finds the line ends.
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n', start)) {
        const line = buf.slice(start, nl);
        start = nl + 1;
        this.processLine(line, events);
      }
    } else {
      // CR or CRLF line ends (Gemini frames with CRLF): still native searches, for the next CR and
      // the next LF, each searched again only once passed (a character loop cost twice as much).
      let lf = buf.indexOf('\n');
      while (cr !== -1 || lf !== -1) {
        const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
        const line = buf.slice(start, end);
        start = end + 1;
        if (end === cr) {
          if (start < buf.length) {
            if (buf.charCodeAt(start) === 10) start++;
          } else {
            this.pendingCR = true;
          }
        }
        this.processLine(line, events);
        if (cr !== -1 && cr < start) cr = buf.indexOf('\r', start);
        if (lf !== -1 && lf < start) lf = buf.indexOf('\n', start);
      }
    }
    this.buffer = buf.slice(start);
    if (this.buffer.length + this.dataChars > this.maxEventChars) throw responseTooLarge('stream event', this.maxEventChars, 'characters');
    if (final) {
      if (this.buffer.length > 0) this.processLine(this.buffer, events);
      this.buffer = '';
      // A stream that ends without a blank line still delivers its last complete event.
      this.dispatch(events);
    }
    return events;
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
    }
    switch (field) {
      case 'data':
        this.dataLines.push(value);
        this.dataChars += value.length;
        this.sawField = true;
        break;
      case 'event':
        this.eventName = value;
        this.sawField = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        this.sawField = true;
        break;
      case 'retry':
        this.sawField = true;
        break;
      default:
        this.ignoredLines++;
    }
  }

  private dispatch(events: SseEvent[]): void {
    if (!this.sawField) return;
    if (this.dataLines.length > 0) {
      const event: SseEvent = { data: this.dataLines.length === 1 ? this.dataLines[0] : this.dataLines.join('\n') };
      if (this.eventName) event.event = this.eventName;
      if (this.lastId !== undefined) event.id = this.lastId;
      events.push(event);
    }
    this.dataLines = [];
    this.dataChars = 0;
    this.eventName = undefined;
    this.sawField = false;
  }
}

/** An event as SSE text again (the vendor's data as it came, without a JSON round trip). */
export function sseTextOf(event: SseEvent): string {
  const data = event.data.includes('\n') ? event.data.replace(/\n/g, '\ndata: ') : event.data;
  return event.event ? `event: ${event.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/**
 * The name on an event's leading `event:` line, read from its text without parsing it (a lazy
 * pass-through's decoders and encoders decide by it): the value as `SseParser` reads it (one
 * space after the colon dropped). Undefined when the event does not start with that line, or when
 * the name has white space at either end (`event:  x`): a parser would keep that space, while a
 * client that goes by the JSON's `type` would not, so such an event is read from its data instead.
 * `end`: where the event ends (its line is not looked for past it).
 */
export function sseEventNameAt(text: string, at = 0, end = text.length): string | undefined {
  if (!startsAt(text, 'event:', at)) return undefined;
  const from = at + (text.charCodeAt(at + 6) === 32 ? 7 : 6);
  let to = text.indexOf('\n', from);
  if (to < 0 || to > end) to = end;
  if (to > from && text.charCodeAt(to - 1) === 13) to--;
  if (to <= from || text.charCodeAt(from) <= 32 || text.charCodeAt(to - 1) <= 32) return undefined;
  return text.slice(from, to);
}
