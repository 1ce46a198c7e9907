/**
 * The breaker as pure functions over a plain record, so the same logic runs on any
 * StateStore (the record is JSON) and is tested on a virtual clock without a pipeline.
 *
 * closed ──(N consecutive failures, N failures within T, or failure ratio ≥ θ with ≥ minThroughput in the window)──▶ open
 * open ──(openUntil passed)──▶ half-open: one probe (a lease, held elsewhere)
 * half-open ──success──▶ closed (trips reset)     half-open ──failure──▶ open (longer)
 */
import type { RandomSource } from '@switchyard/core';

export type BreakerPhase = 'closed' | 'open' | 'half-open';

export interface WindowBucket {
  /** Start of the bucket (ms, aligned to the bucket length). */
  start: number;
  successes: number;
  failures: number;
}

export interface BreakerRecord {
  /** The stored state; `open` reads as half-open once `openUntil` has passed. */
  state: BreakerPhase;
  consecutiveFailures: number;
  buckets: WindowBucket[];
  /** When the open period ends (0 when closed). */
  openUntil: number;
  /** Trips since the last success: each one adds `baseOpenMs` to the open time. */
  trips: number;
  /** Forced open by an operator: stays open until forced closed or its time passes. */
  forced?: boolean;
  /** The latest failures' times (at most `failuresWithin.count`), for the "N within T" rule. */
  failureTimes?: number[];
}

export interface BreakerOptions {
  /** Opens after this many endpoint failures in a row. */
  consecutiveFailures: number;
  /** Opens when failures / calls ≥ this over the window… */
  failureRatio: number;
  /** …and the window holds at least this many calls. */
  minThroughput: number;
  windowMs: number;
  buckets: number;
  /** First open period; the k-th trip without a success in between opens for k × this (Envoy's ejection time). */
  baseOpenMs: number;
  maxOpenMs: number;
  /** Random extra open time, as a share of the period (0.1 → up to +10 %). */
  openJitter: number;
  /** Opens on `count` endpoint failures within `windowMs`, whatever succeeded in between (off when unset). */
  failuresWithin?: { count: number; windowMs: number };
}

export const DEFAULT_BREAKER: Readonly<BreakerOptions> = Object.freeze({
  consecutiveFailures: 5,
  failureRatio: 0.5,
  minThroughput: 10,
  windowMs: 30_000,
  buckets: 10,
  baseOpenMs: 5_000,
  maxOpenMs: 60_000,
  openJitter: 0.1,
});

export type Transition = 'open' | 'half-open' | 'close';

export interface Step {
  record: BreakerRecord;
  transition?: Transition;
  reason?: string;
}

export function closedRecord(): BreakerRecord {
  return { state: 'closed', consecutiveFailures: 0, buckets: [], openUntil: 0, trips: 0 };
}

/** What the breaker is at `now`: an open period that has run out is half-open. */
export function phaseAt(record: BreakerRecord, now: number): BreakerPhase {
  if (record.state === 'closed') return 'closed';
  if (now < record.openUntil) return 'open';
  return 'half-open';
}

/** The window's buckets that still overlap (now − windowMs, now]; idle gaps drop everything. */
export function liveBuckets(buckets: readonly WindowBucket[], now: number, opts: BreakerOptions): WindowBucket[] {
  const bucketMs = opts.windowMs / opts.buckets;
  return buckets.filter((b) => b.start + bucketMs > now - opts.windowMs && b.start <= now);
}

export function windowStats(record: BreakerRecord, now: number, opts: BreakerOptions): { calls: number; failures: number } {
  let calls = 0;
  let failures = 0;
  for (const b of liveBuckets(record.buckets, now, opts)) {
    calls += b.successes + b.failures;
    failures += b.failures;
  }
  return { calls, failures };
}

function count(buckets: readonly WindowBucket[], now: number, opts: BreakerOptions, field: 'successes' | 'failures'): WindowBucket[] {
  const bucketMs = opts.windowMs / opts.buckets;
  const start = Math.floor(now / bucketMs) * bucketMs;
  const live = liveBuckets(buckets, now, opts);
  const last = live[live.length - 1];
  if (last && last.start === start) return [...live.slice(0, -1), { ...last, [field]: last[field] + 1 }];
  return [...live, { start, successes: field === 'successes' ? 1 : 0, failures: field === 'failures' ? 1 : 0 }];
}

/**
 * Successes counted in-process and not yet written, merged into the record (their bucket, if
 * still in the window) before the next step: the counts are the same as if each had been written.
 */
export function withSuccesses(record: BreakerRecord, pending: { start: number; successes: number }, now: number, opts: BreakerOptions): BreakerRecord {
  const live = liveBuckets(record.buckets, now, opts);
  const bucketMs = opts.windowMs / opts.buckets;
  if (pending.successes === 0 || pending.start + bucketMs <= now - opts.windowMs) return live.length === record.buckets.length ? record : { ...record, buckets: live };
  const at = live.findIndex((b) => b.start >= pending.start);
  const buckets = [...live];
  if (at >= 0 && live[at].start === pending.start) buckets[at] = { ...live[at], successes: live[at].successes + pending.successes };
  else buckets.splice(at < 0 ? live.length : at, 0, { start: pending.start, successes: pending.successes, failures: 0 });
  return { ...record, buckets };
}

/**
 * How long the breaker stays open after its `trips`-th trip in a row: linear growth, so a
 * vendor back after a minute is probed again within seconds rather than after a doubled wait.
 */
export function openDurationMs(trips: number, opts: BreakerOptions, random: RandomSource): number {
  const period = Math.min(opts.maxOpenMs, opts.baseOpenMs * Math.max(trips, 1));
  const r = random();
  const jitter = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return period * (1 + opts.openJitter * jitter);
}

function trip(record: BreakerRecord, now: number, opts: BreakerOptions, random: RandomSource, reason: string): Step {
  const trips = record.trips + 1;
  return { record: { ...record, state: 'open', trips, openUntil: now + openDurationMs(trips, opts, random), forced: false, failureTimes: [] }, transition: 'open', reason };
}

/** An attempt succeeded. */
export function recordSuccess(record: BreakerRecord, now: number, opts: BreakerOptions): Step {
  const phase = phaseAt(record, now);
  if (phase === 'open') {
    // An answer that was in flight when the breaker opened: noted, but the open period stands.
    return { record: { ...record, buckets: count(record.buckets, now, opts, 'successes') } };
  }
  if (phase === 'half-open') {
    // Recovered: a fresh window, so failures from the outage cannot re-open it at once.
    return { record: closedRecord(), transition: 'close' };
  }
  return { record: { ...record, consecutiveFailures: 0, buckets: count(record.buckets, now, opts, 'successes') } };
}

/** An attempt failed in a way that counts against the endpoint. */
export function recordFailure(record: BreakerRecord, now: number, opts: BreakerOptions, random: RandomSource): Step {
  const phase = phaseAt(record, now);
  const counted: BreakerRecord = { ...record, consecutiveFailures: record.consecutiveFailures + 1, buckets: count(record.buckets, now, opts, 'failures') };
  if (phase === 'open') return { record: counted };
  if (phase === 'half-open') return trip(counted, now, opts, random, 'the half-open probe failed');
  if (counted.consecutiveFailures >= opts.consecutiveFailures) return trip(counted, now, opts, random, `${counted.consecutiveFailures} consecutive failures`);
  if (opts.failuresWithin) {
    const { count: n, windowMs } = opts.failuresWithin;
    const times = [...(record.failureTimes ?? []), now].slice(-n);
    counted.failureTimes = times;
    // The n-th latest failure is no older than T: n failures within T.
    if (times.length >= n && now - times[0] <= windowMs) return trip(counted, now, opts, random, `${n} failures within ${windowMs / 1000} s`);
  }
  const { calls, failures } = windowStats(counted, now, opts);
  if (calls >= opts.minThroughput && failures / calls >= opts.failureRatio) {
    return trip(counted, now, opts, random, `${failures} of ${calls} calls failed in ${opts.windowMs / 1000} s`);
  }
  return { record: counted };
}

/** The one probe of a half-open period has been admitted. */
export function startProbe(record: BreakerRecord, now: number): Step {
  if (record.state !== 'open' || phaseAt(record, now) !== 'half-open') return { record };
  return { record: { ...record, state: 'half-open' }, transition: 'half-open' };
}

/** Opens the breaker for `ms` (Infinity: until forced closed). */
export function forceOpen(record: BreakerRecord, now: number, ms: number): Step {
  const openUntil = Math.min(now + Math.max(0, ms), Number.MAX_SAFE_INTEGER);
  return { record: { ...record, state: 'open', openUntil, forced: true }, transition: 'open', reason: 'forced open' };
}

export function forceClose(record: BreakerRecord): Step {
  return { record: closedRecord(), transition: record.state === 'closed' ? undefined : 'close' };
}
