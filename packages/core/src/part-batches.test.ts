import { describe, expect, it } from 'vitest';
import { PartBatches, type PartBatch } from './part-batches.js';
import type { StreamPart } from './types.js';

const text = (t: string): StreamPart => ({ type: 'text-delta', text: t });
const texts = (batch: PartBatch | StreamPart) => (Array.isArray(batch) ? (batch as PartBatch) : [batch as StreamPart]).map((p) => (p.type === 'text-delta' ? p.text : p.type));

function source(...batches: StreamPart[][]): PartBatches {
  return new PartBatches(
    (async function* () {
      for (const batch of batches) yield batch;
    })(),
  );
}

describe('BatchReader.putBack', () => {
  it('hands what was put back out first, then the rest, nothing lost or repeated, by part or by batch', async () => {
    const reader = source([text('a'), text('b'), text('c')], [text('d')]);
    const first = await reader.nextBatch();
    expect(texts(first.value!)).toEqual(['a', 'b', 'c']);
    // A commit point at 'a': 'b' and 'c' go back.
    reader.putBack(first.value!.slice(1));
    expect(texts((await reader.next()).value!)).toEqual(['b']);
    // Put back in front of what is left of the current batch.
    reader.putBack([text('x')]);
    expect(texts((await reader.nextBatch()).value!)).toEqual(['x', 'c']);
    expect(texts((await reader.nextBatch()).value!)).toEqual(['d']);
    expect((await reader.nextBatch()).done).toBe(true);
  });

  it('takes nothing for an empty put-back', async () => {
    const reader = source([text('a')]);
    reader.putBack([]);
    expect(texts((await reader.nextBatch()).value!)).toEqual(['a']);
    expect((await reader.next()).done).toBe(true);
  });
});
