import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TRANSCODED_FROM_BYTES, utf8Text, utf8TextChecked } from './utf8-text.js';

/** `text` repeated past `bytes` bytes of UTF-8. */
const atLeast = (text: string, bytes: number) => text.repeat(Math.ceil(bytes / Math.max(1, Buffer.byteLength(text))) + 1);

describe('utf8Text', () => {
  it('gives what Buffer#toString gives, for any text short or long', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.boolean(), (text, long) => {
        const bytes = Buffer.from(long ? atLeast(text, TRANSCODED_FROM_BYTES) : text);
        expect(utf8Text(bytes)).toBe(bytes.toString('utf8'));
      }),
      { numRuns: 400, seed: 41 },
    );
  });

  it('gives what Buffer#toString gives for invalid bytes (its U+FFFD), however long', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.nat(), (text, junk, at) => {
        const valid = Buffer.from(atLeast(`é${text}`, TRANSCODED_FROM_BYTES));
        const cut = at % valid.length;
        const bytes = Buffer.concat([valid.subarray(0, cut), Buffer.from(junk.map((b) => b | 0x80)), valid.subarray(cut)]);
        expect(utf8Text(bytes)).toBe(bytes.toString('utf8'));
      }),
      { numRuns: 400, seed: 42 },
    );
  });

  it('keeps what the slow path must: a byte order mark, NUL, astral characters, a lone accent late in ASCII', () => {
    const cases = [
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(atLeast('{"a":"é"}', TRANSCODED_FROM_BYTES))]),
      Buffer.from(atLeast('😀 𝄞 \u2028 \u0000 ', TRANSCODED_FROM_BYTES)),
      Buffer.from(`${'a'.repeat(100_000)}é`),
      Buffer.from(`é${'a'.repeat(100_000)}`),
    ];
    for (const bytes of cases) expect(utf8Text(bytes)).toBe(bytes.toString('utf8'));
  });
});

describe('utf8TextChecked', () => {
  it('gives utf8Text, and valid exactly when the text encodes back to the same bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.boolean(), fc.uint8Array({ maxLength: 4 }), fc.nat(), (text, long, junk, at) => {
        const valid = Buffer.from(long ? atLeast(text, TRANSCODED_FROM_BYTES) : text);
        const cut = at % (valid.length + 1);
        const bytes = Buffer.concat([valid.subarray(0, cut), Buffer.from(junk.map((b) => b | 0x80)), valid.subarray(cut)]);
        const checked = utf8TextChecked(bytes);
        expect(checked.text).toBe(bytes.toString('utf8'));
        expect(checked.valid).toBe(Buffer.from(checked.text).equals(bytes));
      }),
      { numRuns: 400, seed: 43 },
    );
  });

  it('calls a text that holds U+FFFD itself valid (its bytes say it), and bytes that decode to one invalid', () => {
    expect(utf8TextChecked(Buffer.from('{"text":"a\uFFFDb"}'))).toEqual({ text: '{"text":"a\uFFFDb"}', valid: true });
    expect(utf8TextChecked(Buffer.from(atLeast('\uFFFD é', TRANSCODED_FROM_BYTES))).valid).toBe(true);
    expect(utf8TextChecked(Buffer.from([0x61, 0xff, 0x62]))).toEqual({ text: 'a\uFFFDb', valid: false });
  });
});
