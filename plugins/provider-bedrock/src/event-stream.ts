/**
 * The AWS event-stream framing of InvokeModelWithResponseStream and ConverseStream, decoded
 * with @smithy/eventstream-codec into the events the stream decoders read. Frames arrive split
 * across and packed into body chunks: bytes are kept until a frame's 4-byte total length is
 * there. A CRC mismatch or an impossible length makes the stream malformed (an endpoint
 * failure); a frame claiming more than the gateway's event limit (`upstream.responseLimits.
 * maxEventChars`, as bytes) fails with the coded `SWITCHYARD_ERR_RESPONSE_TOO_LARGE` as soon as
 * its prelude arrives, before any of it is kept; an `exception` frame is the vendor's error,
 * classified like an HTTP one.
 */
import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { SwitchyardError, type Candidate } from '@switchyard/core';
import { DEFAULT_RESPONSE_LIMITS, responseTooLarge, type FrameDecoder, type SseEvent } from '@switchyard/core/wire';
import { streamException } from './classify-error.js';

/** Event-stream frames have a 12-byte prelude and a 4-byte trailer; AWS caps a frame at 16 MiB. */
const MIN_FRAME = 16;
const MAX_FRAME = 16 * 1024 * 1024;

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const utf8 = new TextDecoder();

/** What a decoded frame becomes: an InvokeModel `chunk` unwraps its base64 `bytes` (an Anthropic event). */
export type FrameReader = (message: Message, eventType: string) => SseEvent | undefined;

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name]?.value;
  return typeof value === 'string' ? value : undefined;
}

export class EventStreamFrames implements FrameDecoder {
  private buffer: Uint8Array = new Uint8Array(0);
  private pending: unknown;
  /** Frames decoded, for tests and diagnostics. */
  frames = 0;

  constructor(
    private readonly target: Candidate,
    private readonly read: FrameReader,
    /** Bytes one frame may have (the event limit; AWS's own cap is 16 MiB). */
    private readonly maxFrameBytes = DEFAULT_RESPONSE_LIMITS.maxEventChars,
  ) {}

  push(chunk: Uint8Array): SseEvent[] {
    this.throwPending();
    this.buffer = this.buffer.length === 0 ? chunk : concat(this.buffer, chunk);
    const events: SseEvent[] = [];
    try {
      this.drain(events);
    } catch (error) {
      // Events before the failing frame still count (text the caller should get); the error follows them.
      if (events.length === 0) throw error;
      this.pending = error;
    }
    return events;
  }

  end(): SseEvent[] {
    this.throwPending();
    // A partial frame at the end is a cut stream: the decoder's missing finish signal says so.
    return [];
  }

  private throwPending(): void {
    if (this.pending === undefined) return;
    const error = this.pending;
    this.pending = undefined;
    throw error;
  }

  private drain(events: SseEvent[]): void {
    while (this.buffer.length >= 4) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
      const length = view.getUint32(0);
      if (length < MIN_FRAME || length > MAX_FRAME) throw malformed(`a frame claims ${length} bytes`);
      if (length > this.maxFrameBytes) throw responseTooLarge('event-stream frame', this.maxFrameBytes, 'bytes');
      if (this.buffer.length < length) break;
      const frame = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      let message: Message;
      try {
        message = codec.decode(frame);
      } catch (cause) {
        throw malformed((cause as Error).message, cause);
      }
      this.frames++;
      const event = this.event(message);
      if (event) events.push(event);
    }
  }

  private event(message: Message): SseEvent | undefined {
    const type = header(message, ':message-type') ?? 'event';
    const payload = utf8.decode(message.body);
    if (type === 'exception') throw streamException(header(message, ':exception-type'), payload, this.target);
    if (type === 'error') throw streamException(header(message, ':error-code'), JSON.stringify({ message: header(message, ':error-message') ?? payload }), this.target);
    return this.read(message, header(message, ':event-type') ?? '');
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function malformed(detail: string, cause?: unknown): SwitchyardError {
  return new SwitchyardError('server', `bedrock sent a malformed event stream: ${detail}`, { provider: 'bedrock', vendorCode: 'MalformedEventStream', ...(cause ? { cause } : {}) });
}

/** The `type` of an Anthropic event without parsing it twice (Anthropic writes `type` first). */
function anthropicEventName(json: string): string | undefined {
  const m = /^\{\s*"type"\s*:\s*"([a-z_]+)"/.exec(json);
  if (m) return m[1];
  try {
    const type = (JSON.parse(json) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** InvokeModelWithResponseStream: `chunk` events carry `{"bytes": base64}` of an Anthropic event. */
export const readInvokeFrame: FrameReader = (message, eventType) => {
  if (eventType !== 'chunk') return undefined;
  let bytes: unknown;
  try {
    bytes = (JSON.parse(utf8.decode(message.body)) as { bytes?: unknown }).bytes;
  } catch {
    throw malformed('a chunk frame whose payload is not JSON');
  }
  if (typeof bytes !== 'string') throw malformed('a chunk frame without bytes');
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  const event = anthropicEventName(data);
  return event ? { event, data } : { data };
};

/** ConverseStream: the event type names the JSON payload (`contentBlockDelta`, `metadata`…). */
export const readConverseFrame: FrameReader = (message, eventType) => (eventType ? { event: eventType, data: utf8.decode(message.body) } : undefined);
