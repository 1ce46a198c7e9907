import { describe, expect, it } from 'vitest';
import { writeBehind, writesSettled } from './write-behind.js';

describe('writeBehind', () => {
  it('runs the writes queued meanwhile together, after the answer, and lets readers wait for them', async () => {
    const scope = {};
    const started: number[] = [];
    let seenTogether = 0;
    const errors: unknown[] = [];
    expect(writesSettled(scope)).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      writeBehind(
        scope,
        async () => {
          started.push(i);
          await Promise.resolve();
          seenTogether = Math.max(seenTogether, started.length);
          if (i === 1) throw new Error('disk full');
        },
        (error) => errors.push(error),
      );
    }
    // Nothing runs on the answer's path.
    expect(started).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([]);
    const settled = writesSettled(scope);
    expect(settled).toBeInstanceOf(Promise);
    await settled;
    // One flush: every write had started before the first went on.
    expect(started).toEqual([0, 1, 2]);
    expect(seenTogether).toBe(3);
    // A failed write is reported and still settles.
    expect(errors).toHaveLength(1);
    expect(writesSettled(scope)).toBeUndefined();
  });
});
