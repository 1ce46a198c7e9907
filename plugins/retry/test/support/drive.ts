/**
 * Runs work on a VirtualClock when nothing does real I/O (the in-process transport): drain
 * every microtask and immediate, then jump to the next due timer, until the work settles.
 */
import type { VirtualClock } from '@switchyard/core';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function drive<T>(clock: VirtualClock, work: Promise<T>, maxSteps = 1_000_000): Promise<T> {
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  tracked.catch(() => undefined);
  for (let step = 0; step < maxSteps; step++) {
    await turn();
    if (settled) break;
    if (!(await clock.next())) {
      await turn();
      if (!settled) throw new Error('virtual time stalled: the work waits on nothing');
    }
  }
  return tracked;
}
