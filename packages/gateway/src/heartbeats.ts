/**
 * The heartbeats of streams waiting for their first part, kept by one timer for them all
 * instead of a timer per stream (body-deadlines.ts does the same for request bodies): nearly
 * every stream commits long before its first heartbeat, and a timer set and cleared per request
 * costs more than the request's whole wait in this queue. Every wait has the same interval, so
 * the queue stays in order of due time by appending; each stream still beats exactly
 * `everyMs` after it began waiting and every `everyMs` after that.
 */
import type { Clock, TimerHandle } from '@switchyard/core';

/** One stream's place in the queue; `stop()` takes it out (at once, wherever it stands). */
export class HeartbeatWait {
  // The queue's links, kept on the wait itself: no entry object, no map.
  previous: HeartbeatWait | undefined = undefined;
  next: HeartbeatWait | undefined = undefined;
  queued = true;

  constructor(
    private readonly queue: Heartbeats,
    readonly beat: () => void,
    public due: number,
  ) {}

  stop(): void {
    if (this.queued) this.queue.unlink(this);
  }
}

export class Heartbeats {
  private first: HeartbeatWait | undefined;
  private last: HeartbeatWait | undefined;
  private timer: TimerHandle | undefined;
  /** When the armed timer fires (infinity: none is). A new wait arms it only when nothing is armed: every other wait is due before it. */
  private armedFor = Number.POSITIVE_INFINITY;
  private readonly fire = () => {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    // Beaten waits go to the back, due an interval from now: the loop ends at the first of them.
    for (let wait = this.first; wait !== undefined && wait.due <= now; wait = this.first) {
      this.unlink(wait);
      wait.due = now + this.everyMs;
      this.append(wait);
      try {
        wait.beat();
      } catch {
        // A client's socket that fails a write is that stream's concern (its relay sees it); the others still beat.
      }
    }
    if (this.first) this.arm(this.first.due);
  };

  /** At least 1 ms: a wait beaten is put back due an interval later, and the firing loop ends there. */
  readonly everyMs: number;

  constructor(
    private readonly clock: Clock,
    everyMs: number,
  ) {
    this.everyMs = Math.max(1, everyMs);
  }

  /** Calls `beat` every `everyMs` from now until the returned wait is stopped. */
  start(beat: () => void): HeartbeatWait {
    const wait = new HeartbeatWait(this, beat, this.clock.now() + this.everyMs);
    this.append(wait);
    if (wait.due < this.armedFor) this.arm(wait.due);
    return wait;
  }

  /** How many streams are waiting (tests). */
  get waiting(): number {
    let count = 0;
    for (let wait = this.first; wait; wait = wait.next) count++;
    return count;
  }

  /** Takes a wait out of the queue (its `stop()`). */
  unlink(wait: HeartbeatWait): void {
    if (wait.previous) wait.previous.next = wait.next;
    else this.first = wait.next;
    if (wait.next) wait.next.previous = wait.previous;
    else this.last = wait.previous;
    wait.previous = wait.next = undefined;
    wait.queued = false;
    // The armed timer stays: when it fires early it re-arms for the wait then first, and an
    // empty queue leaves nothing armed past that one firing.
  }

  private append(wait: HeartbeatWait): void {
    wait.previous = this.last;
    wait.next = undefined;
    wait.queued = true;
    if (this.last) this.last.next = wait;
    else this.first = wait;
    this.last = wait;
  }

  private arm(due: number): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.armedFor = due;
    this.timer = this.clock.setTimeout(this.fire, Math.max(0, due - this.clock.now()));
    // Waiting streams hold their sockets open; the heartbeat timer itself must not keep a stopped gateway alive.
    (this.timer as { unref?: () => void }).unref?.();
  }
}
