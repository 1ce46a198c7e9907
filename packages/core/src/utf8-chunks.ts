/**
 * A byte stream's text, chunk by chunk: a UTF-8 sequence split across two chunks waits for its
 * end, an invalid one becomes U+FFFD, and a leading byte order mark is dropped (what
 * `TextDecoder` does with `{ stream: true }`). Node's own UTF-8 slice does the work: for the
 * ASCII-heavy text vendors stream it costs a fraction of `TextDecoder`'s ICU converter, which was
 * 2 % of a streamed answer's CPU; a large chunk that is not ASCII goes through ICU (utf8-text.ts).
 */
import { utf8Text } from './utf8-text.js';

export class Utf8Chunks {
  /** The start of a sequence the last chunk ended inside. */
  private carry: Buffer | undefined;
  private started = false;

  decode(chunk: Uint8Array): string {
    let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.carry) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = undefined;
    }
    const whole = wholeSequencesLength(bytes);
    if (whole < bytes.length) {
      this.carry = Buffer.from(bytes.subarray(whole));
      bytes = bytes.subarray(0, whole);
    }
    return this.text(utf8Text(bytes));
  }

  /** What an unfinished sequence at the end of the stream was (U+FFFD). */
  end(): string {
    const rest = this.carry;
    this.carry = undefined;
    return rest ? this.text(rest.toString('utf8')) : '';
  }

  private text(text: string): string {
    if (this.started || text.length === 0) return text;
    this.started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/** Bytes up to the start of a multi-byte sequence cut off at the end (all of them when none is). */
function wholeSequencesLength(bytes: Buffer): number {
  const length = bytes.length;
  let lead = length - 1;
  // Back over at most three continuation bytes (10xxxxxx) to the sequence's first byte.
  while (lead >= 0 && length - lead <= 3 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return length;
  const first = bytes[lead]!;
  const needed = first >= 0xf0 && first < 0xf8 ? 4 : first >= 0xe0 && first < 0xf0 ? 3 : first >= 0xc0 && first < 0xe0 ? 2 : 1;
  return length - lead < needed ? lead : length;
}
