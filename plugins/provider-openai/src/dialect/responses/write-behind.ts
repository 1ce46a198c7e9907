/**
 * Writes that must not delay an answer: a response stored because `store` defaulted to true (as
 * in OpenAI's API) is written after the client's answer ended, together with the others that
 * ended meanwhile (one flush per turn of the event loop), never on the path to the first or the
 * last byte. A write that fails is logged; the answer already went out.
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
  setImmediate(() => {
    const batch = pending.writes;
    pending.writes = [];
    pending.scheduled = false;
    void Promise.all(batch.map((run) => run()));
  });
}

/** Resolves once every write queued on `scope` so far has landed (or failed): at once when none is pending. */
export function writesSettled(scope: object): Promise<void> | undefined {
  const queue = queues.get(scope);
  if (!queue || queue.inFlight.size === 0) return undefined;
  return Promise.all(queue.inFlight).then(() => undefined);
}
