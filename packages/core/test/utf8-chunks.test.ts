import { describe, expect, it } from 'vitest';
import { Utf8Chunks } from '../src/utf8-chunks.js';

/** A seeded generator (mulberry32): the same cases on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function decodeInPieces(bytes: Uint8Array, cuts: number[]): string {
  const chunks = new Utf8Chunks();
  let text = '';
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    text += chunks.decode(bytes.subarray(at, cut));
    at = cut;
  }
  return text + chunks.end();
}

describe('Utf8Chunks', () => {
  it('joins a sequence split across chunks at every byte', () => {
    const bytes = new TextEncoder().encode('a é € 𝄞 z');
    for (let cut = 0; cut <= bytes.length; cut++) expect(decodeInPieces(bytes, [cut])).toBe('a é € 𝄞 z');
    // One byte at a time.
    expect(decodeInPieces(bytes, [...bytes.keys()].slice(1))).toBe('a é € 𝄞 z');
  });

  it('drops a leading byte order mark only, even when it arrives in pieces', () => {
    const bytes = new TextEncoder().encode('\ufeffdata: x\n\n\ufeff');
    expect(decodeInPieces(bytes, [1, 2])).toBe('data: x\n\n\ufeff');
    expect(decodeInPieces(new Uint8Array(0), [])).toBe('');
  });

  it('decodes what TextDecoder decodes, valid or not, however the bytes are cut', () => {
    const random = seeded(41);
    const alphabet = [0x61, 0x0a, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9d, 0x84, 0x9e, 0x80, 0xbf, 0xff, 0xc0, 0xed, 0xa0, 0xf4, 0x90, 0xef, 0xbb];
    for (let run = 0; run < 3000; run++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * alphabet.length)]!);
      const cuts = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * bytes.length)))].sort((a, b) => a - b);
      const expected = new TextDecoder('utf-8').decode(bytes);
      expect(decodeInPieces(bytes, cuts), `bytes ${Buffer.from(bytes).toString('hex')} cut at ${cuts.join(',')}`).toBe(expected);
    }
  });

  it('takes Uint8Arrays that are views into a larger buffer', () => {
    const backing = new TextEncoder().encode('xxé€yy');
    expect(decodeInPieces(backing.subarray(2, 7), [1])).toBe('é€');
  });
});
