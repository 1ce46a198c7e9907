/**
 * Writes that must not delay an answer: a response stored because `store` defaulted to true (as
 * in OpenAI's API) is written after the client's answer ended, together with the others that
 * ended meanwhile (one flush per turn of the event loop), never on the path to the first or the
 * last byte. A write that fails is logged; the answer already went out.
 */
interface Queue {
  writes: (() => Promise<void>)[];
  scheduled: boolean;
}

const queues = new WeakMap<object, Queue>();

/** Queues `write` for the next flush of `scope`'s writes (one queue per state store). */
export function writeBehind(scope: object, write: () => Promise<void>, onError: (error: unknown) => void): void {
  let queue = queues.get(scope);
  if (!queue) queues.set(scope, (queue = { writes: [], scheduled: false }));
  queue.writes.push(() => write().catch(onError));
  if (queue.scheduled) return;
  queue.scheduled = true;
  setImmediate(() => {
    const batch = queue!.writes;
    queue!.writes = [];
    queue!.scheduled = false;
    void Promise.all(batch.map((run) => run()));
  });
}
