/**
 * Time and randomness are injected so every time-based policy can be tested on virtual time
 * with seeded randomness instead of real sleeps.
 */

export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export type RandomSource = () => number;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    // Referenced on purpose: the timers a pending request arms (deadlines, backoff sleeps,
    // heartbeats) are work in flight, so a script awaiting a retry must not exit mid-request.
    // Background work of an idle pipeline (health probes) unrefs its own handles.
    return setTimeout(fn, Math.max(0, ms));
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Sleeps on the given clock; rejects with the signal's reason when aborted. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface VirtualTimer { id: number; at: number; fn: () => void }

/**
 * A clock that moves only when told to. `advance()` fires due timers in time order and lets
 * promise continuations run between them, so awaited code observes a consistent time.
 */
export class VirtualClock implements Clock {
  private current: number;
  private timers: VirtualTimer[] = [];
  private nextId = 1;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id: number }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  /** Timers set on this clock so far, cleared or not (how many a piece of code arms). */
  timersSet(): number {
    return this.nextId - 1;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.nextDue(target);
      if (!due) break;
      this.current = Math.max(this.current, due.at);
      this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Fires the next pending timer, however far away; returns false if none. */
  async next(): Promise<boolean> {
    await flushMicrotasks();
    const due = this.nextDue(Number.POSITIVE_INFINITY);
    if (!due) return false;
    await this.advance(due.at - this.current);
    return true;
  }

  private nextDue(limit: number): VirtualTimer | undefined {
    let best: VirtualTimer | undefined;
    for (const t of this.timers) if (t.at <= limit && (!best || t.at < best.at)) best = t;
    return best;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/**
 * Drives a promise to completion on a virtual clock while real I/O (loopback sockets) also
 * progresses: alternates a real macrotask turn with a small virtual step.
 */
export async function runWithVirtualTime<T>(clock: VirtualClock, work: Promise<T>, { stepMs = 50, maxMs = 600_000, realWaitMs = 1 } = {}): Promise<T> {
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  tracked.catch(() => undefined);
  let elapsed = 0;
  while (!settled && elapsed < maxMs) {
    await new Promise((r) => setTimeout(r, realWaitMs));
    if (settled) break;
    await clock.advance(stepMs);
    elapsed += stepMs;
  }
  return tracked;
}

/** mulberry32: small, fast, seeded; good enough for jitter and weighted picks in tests. */
export function seededRandom(seed: number): RandomSource {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
