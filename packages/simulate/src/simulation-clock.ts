/**
 * A discrete-event clock for long simulations. Core's VirtualClock flushes only a few microtask
 * turns between timers, which is right for unit tests but too shallow for a whole pipeline's
 * promise chains; this clock gives every fired timer a full macrotask turn (all microtasks
 * drain before setImmediate runs), so each event's consequences settle before the next event.
 * Timers live in a binary heap ordered by (time, creation), so the order is deterministic.
 */
import type { Clock, TimerHandle } from '@switchyard/core';

interface SimTimer {
  readonly id: number;
  at: number;
  fn: (() => void) | undefined;
}

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface RunUntilOptions {
  /** Called after each fired timer; return true to stop early. */
  afterEach?: () => boolean | void;
}

export class SimulationClock implements Clock {
  private current: number;
  private heap: SimTimer[] = [];
  private nextId = 1;
  private live = 0;
  /** Timers fired so far (a measure of simulation work). */
  fired = 0;

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: SimTimer = { id: this.nextId++, at: this.current + Math.max(0, Number.isFinite(ms) ? ms : 0), fn };
    this.push(timer);
    this.live++;
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = handle as SimTimer;
    if (timer && timer.fn) {
      // Lazy deletion: the heap entry is skipped when it comes up.
      timer.fn = undefined;
      this.live--;
    }
  }

  /** Timers still waiting to fire. */
  pendingTimers(): number {
    return this.live;
  }

  /** When the next live timer falls due, or undefined. */
  nextAt(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.at;
  }

  /**
   * Fires, in order, every timer due at or before `until`, with a full macrotask turn after
   * each; then moves the clock to `until`. Returns false when `afterEach` stopped it early.
   */
  async runUntil(until: number, options: RunUntilOptions = {}): Promise<boolean> {
    await macrotask();
    for (;;) {
      const at = this.nextAt();
      if (at === undefined || at > until) break;
      this.fireNext();
      await macrotask();
      if (options.afterEach?.()) return false;
    }
    if (until > this.current) this.current = until;
    return true;
  }

  /** Fires the next live timer however far away; false when none is left. */
  async step(): Promise<boolean> {
    if (this.nextAt() === undefined) return false;
    this.fireNext();
    await macrotask();
    return true;
  }

  private fireNext(): void {
    const timer = this.pop()!;
    const fn = timer.fn!;
    timer.fn = undefined;
    this.live--;
    if (timer.at > this.current) this.current = timer.at;
    this.fired++;
    fn();
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0]!.fn === undefined) this.pop();
  }

  private before(a: SimTimer, b: SimTimer): boolean {
    return a.at < b.at || (a.at === b.at && a.id < b.id);
  }

  private push(timer: SimTimer): void {
    const heap = this.heap;
    heap.push(timer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): SimTimer | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && this.before(heap[l]!, heap[smallest]!)) smallest = l;
        if (r < heap.length && this.before(heap[r]!, heap[smallest]!)) smallest = r;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return top;
  }
}
