/**
 * Error patterns as signals of their own, from live attempts per deployment:
 * - `same-error`: one error (kind, code, status) `inARow` times in a row, or `inWindow` times
 *   within `windowMs`: a key that keeps getting 401, a model that keeps answering 404, a vendor
 *   that keeps answering 529;
 * - `timeouts`: `inARow` timeouts in a row, or at least `share` of the attempts within
 *   `windowMs` (with `minAttempts`): a deployment that is "always timing out".
 * A pattern starts and ends with a `health:pattern` event (logs, metrics and alerts are built
 * from it). Cancelled attempts count nowhere; a success breaks every streak.
 */
import { type ErrorPattern } from '@switchyard/contracts';
import type { AttemptOutcome, Pipeline, SwitchyardError } from '@switchyard/core';
import type { PatternOptions } from './options.js';
import { SlidingWindow } from './sliding-window.js';

const TIMEOUT_KINDS = new Set(['timeout', 'ttft-timeout', 'idle-timeout']);

interface Track {
  /** The error the current streak repeats, and how often. */
  streakKey?: string;
  streak: number;
  timeoutStreak: number;
  /** Recent times of each error, at most `inWindow` per error. */
  seen: Map<string, number[]>;
  /** Attempts (failure weight 1 = a timeout) for the timeout share. */
  attempts?: SlidingWindow;
  active: Map<string, ErrorPattern>;
}

const keyOf = (e: SwitchyardError) => `${e.kind}|${e.code}|${e.status ?? ''}`;

export class ErrorPatterns {
  private readonly tracks = new Map<string, Track>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly options: PatternOptions,
  ) {}

  get enabled(): boolean {
    return this.options.sameError !== false || this.options.timeouts !== false;
  }

  /** `now`: when the attempt ended, on the pipeline's clock. */
  observe(outcome: AttemptOutcome, now = this.pipeline.clock.now()): void {
    if (outcome.outcome === 'ignored') return;
    const id = outcome.candidate.deploymentId;
    let track = this.tracks.get(id);
    // Without the timeout share (which needs every attempt), a success on a quiet deployment is nothing to count.
    if (outcome.ok && this.options.timeouts === false && (!track || (track.streak === 0 && track.active.size === 0))) return;
    if (!track) this.tracks.set(id, (track = { streak: 0, timeoutStreak: 0, seen: new Map(), active: new Map() }));
    const error = outcome.ok ? undefined : outcome.error;
    const timedOut = error !== undefined && TIMEOUT_KINDS.has(error.kind);
    const key = error && keyOf(error);
    if (key === undefined) {
      track.streak = 0;
      track.streakKey = undefined;
    } else if (track.streakKey === key) track.streak++;
    else {
      track.streakKey = key;
      track.streak = 1;
    }
    track.timeoutStreak = timedOut ? track.timeoutStreak + 1 : 0;
    const { sameError, timeouts } = this.options;
    if (error && key && sameError !== false) {
      let times = track.seen.get(key);
      if (!times) track.seen.set(key, (times = []));
      times.push(now);
      if (times.length > sameError.inWindow) times.shift();
    }
    if (timeouts !== false) {
      track.attempts ??= new SlidingWindow(timeouts.windowMs, 10);
      track.attempts.add(now, timedOut ? 1 : 0);
    }
    this.evaluate(id, track, now, error);
  }

  /** The patterns going on now on a deployment (re-checked against their windows). */
  active(deploymentId: string): ErrorPattern[] {
    const track = this.tracks.get(deploymentId);
    if (!track || track.active.size === 0) return [];
    this.evaluate(deploymentId, track, this.pipeline.clock.now(), undefined);
    return [...track.active.values()];
  }

  private evaluate(id: string, track: Track, now: number, error: SwitchyardError | undefined): void {
    const { sameError, timeouts } = this.options;
    if (sameError !== false) {
      const inWindow = (key: string) => (track.seen.get(key) ?? []).filter((t) => t > now - sameError.windowMs).length;
      for (const [name, pattern] of track.active) {
        if (pattern.pattern !== 'same-error') continue;
        const key = name.slice('same-error '.length);
        if (!(track.streakKey === key && track.streak >= sameError.inARow) && inWindow(key) < sameError.inWindow) this.end(id, track, name, now);
      }
      const key = error && keyOf(error);
      if (error && key && !track.active.has(`same-error ${key}`)) {
        const streak = track.streakKey === key ? track.streak : 0;
        const count = inWindow(key);
        if (streak >= sameError.inARow || count >= sameError.inWindow) {
          const how = streak >= sameError.inARow ? `${streak} times in a row` : `${count} times within ${sameError.windowMs / 1000} s`;
          this.start(id, track, `same-error ${key}`, { pattern: 'same-error', error, count: Math.max(streak, count), message: `${id} keeps failing with the same error, ${how}: ${error.kind} ${error.code}${error.status ? ` (${error.status})` : ''}` }, now);
        }
      }
    }
    if (timeouts !== false && track.attempts) {
      const { total, failures } = track.attempts.counts(now);
      const byShare = total >= timeouts.minAttempts && failures / total >= timeouts.share;
      const inARow = track.timeoutStreak >= timeouts.inARow;
      const going = track.active.has('timeouts');
      if (going && !byShare && !inARow) this.end(id, track, 'timeouts', now);
      else if (!going && error && TIMEOUT_KINDS.has(error.kind) && (byShare || inARow)) {
        const how = inARow ? `${track.timeoutStreak} timeouts in a row` : `${Math.round(failures)} of ${total} attempts timed out within ${timeouts.windowMs / 1000} s`;
        this.start(id, track, 'timeouts', { pattern: 'timeouts', error, count: inARow ? track.timeoutStreak : Math.round(failures), message: `${id} is timing out: ${how} (last: ${error.kind})` }, now);
      }
    }
  }

  private start(id: string, track: Track, name: string, found: { pattern: ErrorPattern['pattern']; error: SwitchyardError; count: number; message: string }, now: number): void {
    const { error } = found;
    const pattern: ErrorPattern = { deployment: id, pattern: found.pattern, active: true, kind: error.kind, code: error.code, ...(error.status !== undefined ? { status: error.status } : {}), count: found.count, since: now, message: found.message };
    track.active.set(name, pattern);
    this.pipeline.events.emit('health:pattern', pattern);
  }

  private end(id: string, track: Track, name: string, now: number): void {
    const pattern = track.active.get(name)!;
    track.active.delete(name);
    const lasted = Math.round((now - pattern.since) / 1000);
    this.pipeline.events.emit('health:pattern', { ...pattern, active: false, message: `${id}: the ${pattern.pattern === 'timeouts' ? 'timeouts' : `repeated ${pattern.kind} errors`} stopped after ${lasted} s` });
  }
}
