import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from './read-body.js';

/** A request whose body arrives in these chunks. */
function request(...chunks: Buffer[]): IncomingMessage {
  const body = new PassThrough();
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  Object.assign(body, { headers: { 'content-length': String(length) } });
  for (const chunk of chunks) body.write(chunk);
  body.end();
  return body as unknown as IncomingMessage;
}

describe('readJsonBody', () => {
  it('keeps the bytes of a valid body, a U+FFFD the client wrote included: they are exactly its text', async () => {
    for (const text of ['{"content":"plain"}', '{"content":"a\uFFFDb"}', `{"content":"${'\u2014 é 😀 '.repeat(1000)}"}`]) {
      const read = await readJsonBody(request(Buffer.from(text)), 1 << 20);
      expect(read.text).toBe(text);
      expect(read.bytes?.equals(Buffer.from(text))).toBe(true);
    }
  });

  it('leaves out the bytes of a body that was not valid UTF-8: its text says U+FFFD where they said something else', async () => {
    for (const filler of ['', 'é'.repeat(3000)]) {
      const read = await readJsonBody(request(Buffer.from(`{"content":"${filler}a`), Buffer.from([0xff, 0xc3]), Buffer.from('b"}')), 1 << 20);
      expect(read.text).toBe(`{"content":"${filler}a\uFFFD\uFFFDb"}`);
      expect(read.bytes).toBeUndefined();
    }
  });
});
