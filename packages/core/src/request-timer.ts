/**
 * One timer per request, re-armed for whichever limit comes next: the request deadline, the
 * attempt's header / first-token / idle / whole-attempt limit. Pushing a limit later (every
 * chunk pushes the idle limit) costs an assignment; the timer re-arms itself lazily when it
 * fires early.
 */
import type { Clock, TimerHandle } from './clock.js';
import { SwitchyardError, type ErrorKind } from './errors.js';

export type AttemptPhase = 'headers' | 'first-token' | 'idle' | 'attempt' | 'none';

const PHASE_KIND: Record<Exclude<AttemptPhase, 'none'>, ErrorKind> = {
  headers: 'timeout',
  'first-token': 'ttft-timeout',
  idle: 'idle-timeout',
  attempt: 'timeout',
};

/** The kinds of a silent endpoint (no headers, no first token, no data in time): never retried on the same route. */
export const SILENT_ENDPOINT_KINDS: ReadonlySet<ErrorKind> = new Set(Object.values(PHASE_KIND));

export function isSilentEndpoint(error: { kind: ErrorKind }): boolean {
  return SILENT_ENDPOINT_KINDS.has(error.kind);
}

/** setTimeout's ceiling: a longer delay fires at once (with a warning), so far limits re-arm in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class RequestTimer {
  private handle: TimerHandle | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private phase: AttemptPhase = 'none';
  private phaseDeadline = Number.POSITIVE_INFINITY;
  private phaseLimitMs = 0;
  /** What the phase limit aborts: the running attempt. */
  private attemptAbort: { abort(reason: unknown): void } | undefined;
  private requestDeadlineActive = true;

  constructor(
    private readonly clock: Clock,
    readonly deadlineAt: number,
    private readonly onDeadline: (error: SwitchyardError) => void,
  ) {
    // Armed at the end of this turn, unless an attempt's limit arms it first: a request whose
    // hooks answer at once starts its attempt in the same turn, and one timer then serves both
    // limits where the deadline's would be set and at once cleared for the earlier header limit.
    // Nothing is lost by the wait: a timer cannot fire before the turn ends.
    queueMicrotask(() => this.arm());
  }

  /** Starts (or moves) the limit of the running attempt; `now` when the caller read the clock already. */
  setPhase(phase: AttemptPhase, limitMs: number, attempt?: { abort(reason: unknown): void }, now = this.clock.now()): void {
    if (attempt) this.attemptAbort = attempt;
    this.phase = phase;
    this.phaseLimitMs = limitMs;
    this.phaseDeadline = phase === 'none' ? Number.POSITIVE_INFINITY : now + limitMs;
    this.arm(now);
  }

  /** Pushes the idle limit back after a chunk. */
  touch(): void {
    if (this.phase === 'idle') this.phaseDeadline = this.clock.now() + this.phaseLimitMs;
  }

  /** After a stream commits, the request deadline no longer cuts a flowing answer; the idle limit guards it. */
  releaseRequestDeadline(): void {
    this.requestDeadlineActive = false;
  }

  clearAttempt(): void {
    this.phase = 'none';
    this.phaseDeadline = Number.POSITIVE_INFINITY;
    this.attemptAbort = undefined;
  }

  remainingMs(): number {
    return this.deadlineAt - this.clock.now();
  }

  dispose(): void {
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    this.phase = 'none';
    this.requestDeadlineActive = false;
  }

  private nextDue(): number {
    return Math.min(this.requestDeadlineActive ? this.deadlineAt : Number.POSITIVE_INFINITY, this.phaseDeadline);
  }

  private arm(now?: number): void {
    const due = this.nextDue();
    if (due === this.armedFor) return;
    // Only re-schedule when the limit moved earlier (or nothing is armed): later limits are
    // picked up when the armed timer fires.
    if (this.handle !== undefined && due > this.armedFor) return;
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
    this.armedFor = due;
    if (!Number.isFinite(due)) return;
    this.handle = this.clock.setTimeout(() => this.fire(), Math.min(due - (now ?? this.clock.now()), MAX_TIMER_MS));
  }

  private fire(): void {
    this.handle = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    if (this.requestDeadlineActive && now >= this.deadlineAt) {
      this.requestDeadlineActive = false;
      this.onDeadline(new SwitchyardError('timeout', 'request deadline exceeded', { code: 'SWITCHYARD_ERR_DEADLINE', retryable: false }));
      return;
    }
    if (this.phase !== 'none' && now >= this.phaseDeadline) {
      const phase = this.phase;
      const attempt = this.attemptAbort;
      const kind = PHASE_KIND[phase];
      this.clearAttempt();
      attempt?.abort(new SwitchyardError(kind, `no ${phase === 'headers' ? 'response headers' : phase === 'first-token' ? 'first token' : phase === 'idle' ? 'data' : 'answer'} within ${this.phaseLimitMs} ms`));
    }
    this.arm();
  }
}
