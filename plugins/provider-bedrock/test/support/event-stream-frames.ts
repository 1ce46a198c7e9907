/**
 * AWS event-stream frames written from the format's definition (prelude: total length, headers
 * length, CRC32 of both; headers; payload; CRC32 of everything before it), independently of
 * @smithy/eventstream-codec, so the fake Bedrock's frames test the provider's decoder rather
 * than the library against itself. Only string headers (type 7) are needed.
 */
import { crc32 } from 'node:zlib';

export function encodeFrame(headers: Record<string, string>, payload: Buffer | string): Buffer {
  const headerParts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(7, 1 + n.length);
    head.writeUInt16BE(v.length, 2 + n.length);
    headerParts.push(head, v);
  }
  const headerBytes = Buffer.concat(headerParts);
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const total = 12 + headerBytes.length + body.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  headerBytes.copy(frame, 12);
  body.copy(frame, 12 + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  return frame;
}

/** An InvokeModelWithResponseStream `chunk` event wrapping one Anthropic event. */
export function chunkFrame(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
  return encodeFrame({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify({ bytes, p: 'abcdefghij' }));
}

export function exceptionFrame(exceptionType: string, message: string): Buffer {
  return encodeFrame({ ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' }, JSON.stringify({ message }));
}

export function converseFrame(eventType: string, payload: unknown): Buffer {
  return encodeFrame({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify(payload));
}

/** Cuts bytes at the given sizes in turn (frames split across chunks, several frames in one). */
export function rechunk(bytes: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}
