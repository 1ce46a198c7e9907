/**
 * Writes that must not delay an answer: a response stored because `store` defaulted to true (as
 * in OpenAI's API) is written after the client's answer ended, together with the others that
 * ended meanwhile (one flush every `FLUSH_AFTER_MS`), never on the path to the first or the last
 * byte. A write that fails is logged; the answer already went out. The flush waits a few
 * milliseconds rather than a turn of the event loop: a journal writes and fsyncs each flush's
 * answers together, and fewer, larger flushes cost a served Responses answer 0.86× the CPU at
 * c = 32 (bench/README.md, run AH).
 *
 * A client's next turn can arrive before its previous answer's write landed (an agent sends the
 * tool result a few milliseconds after the answer): readers of the store call `writesSettled`
 * first, so this gateway never answers "not found" for a response it is still writing.
 */
interface Queue {
  writes: (() => Promise<void>)[];
  scheduled: boolean;
  inFlight: Set<Promise<void>>;
}

const queues = new WeakMap<object, Queue>();

/** How long the first write of a flush waits for others (a reader of the store waits for it too: `writesSettled`). */
export const FLUSH_AFTER_MS = 5;

/** Queues `write` for the next flush of `scope`'s writes (one queue per state store). */
export function writeBehind(scope: object, write: () => Promise<void>, onError: (error: unknown) => void): void {
  let queue = queues.get(scope);
  if (!queue) queues.set(scope, (queue = { writes: [], scheduled: false, inFlight: new Set() }));
  const pending = queue;
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  pending.inFlight.add(done);
  pending.writes.push(() =>
    write()
      .catch(onError)
      .finally(() => {
        pending.inFlight.delete(done);
        release();
      }),
  );
  if (pending.scheduled) return;
  pending.scheduled = true;
  setTimeout(() => {
    const batch = pending.writes;
    pending.writes = [];
    pending.scheduled = false;
    void Promise.all(batch.map((run) => run()));
  }, FLUSH_AFTER_MS);
}

/** Resolves once every write queued on `scope` so far has landed (or failed): at once when none is pending. */
export function writesSettled(scope: object): Promise<void> | undefined {
  const queue = queues.get(scope);
  if (!queue || queue.inFlight.size === 0) return undefined;
  return Promise.all(queue.inFlight).then(() => undefined);
}
