/**
 * The deadline of every request body being read, watched by one timer for them all instead of
 * a timer per request: nearly every body has arrived before a timer would fire, and a timer
 * set and cleared per request was a measurable share of a request's CPU. The sweep runs only
 * while bodies are pending, every quarter of the limit (at most every second), so a body gets
 * its 408 between its limit and a quarter past it.
 */
import type { Clock, TimerHandle } from '@switchyard/core';

export class BodyDeadlines {
  private readonly pending = new Map<object, { at: number; expire: () => void }>();
  private timer: TimerHandle | undefined;
  private readonly everyMs: number;
  private readonly sweep = () => {
    this.timer = undefined;
    const now = this.clock.now();
    for (const [key, entry] of this.pending) {
      if (entry.at > now) continue;
      this.pending.delete(key);
      entry.expire();
    }
    if (this.pending.size > 0) this.arm();
  };

  constructor(
    private readonly clock: Clock,
    readonly limitMs: number,
  ) {
    this.everyMs = Math.max(10, Math.min(1000, Math.ceil(limitMs / 4)));
  }

  /** Calls `expire` once the body read under `key` is past its limit, unless `done(key)` came first. */
  watch(key: object, expire: () => void): void {
    this.pending.set(key, { at: this.clock.now() + this.limitMs, expire });
    if (this.timer === undefined) this.arm();
  }

  done(key: object): void {
    this.pending.delete(key);
  }

  private arm(): void {
    this.timer = this.clock.setTimeout(this.sweep, this.everyMs);
    // The system clock's timer must not keep an idle process alive for a body nobody sends.
    (this.timer as { unref?: () => void }).unref?.();
  }
}
