/**
 * When a fault is active and how slow an answer is, as pure functions of time and a seeded
 * random source, so msw handlers, the fault server and the simulation share them.
 */
import type { RandomSource } from '@switchyard/core';

export interface ScheduleInput {
  /** The fault's clock, ms. */
  now: number;
  random: RandomSource;
  /** Requests this fault already answered. */
  answered: number;
}

/** True while the fault is active. */
export type Schedule = (input: ScheduleInput) => boolean;

export const always: Schedule = () => true;

/** Active for `startMs <= now < endMs` (absolute times on the fault's clock). */
export function between(startMs: number, endMs: number): Schedule {
  return ({ now }) => now >= startMs && now < endMs;
}

/** Down for `downMs` at the start of every `periodMs`, counted from `startMs`. */
export function flapping({ periodMs, downMs, startMs = 0 }: { periodMs: number; downMs: number; startMs?: number }): Schedule {
  if (!(periodMs > 0) || downMs < 0) throw new RangeError('flapping needs periodMs > 0 and downMs >= 0');
  return ({ now }) => now >= startMs && (now - startMs) % periodMs < downMs;
}

/** Active for a `rate` share (0..1) of requests, decided by the seeded random source. */
export function brownout(rate: number): Schedule {
  if (!(rate >= 0 && rate <= 1)) throw new RangeError('brownout rate must be between 0 and 1');
  return ({ random }) => random() < rate;
}

/** Active for the first `n` answers. */
export function firstN(n: number): Schedule {
  return ({ answered }) => answered < n;
}

export function allOf(...schedules: Schedule[]): Schedule {
  return (input) => schedules.every((s) => s(input));
}

export function anyOf(...schedules: Schedule[]): Schedule {
  return (input) => schedules.some((s) => s(input));
}

export function not(schedule: Schedule): Schedule {
  return (input) => !schedule(input);
}

/** A delay in ms drawn from the seeded random source. */
export type Latency = (random: RandomSource) => number;

export function fixed(ms: number): Latency {
  return () => ms;
}

export function uniform(minMs: number, maxMs: number): Latency {
  return (random) => minMs + random() * (maxMs - minMs);
}

/**
 * A long-tailed delay: exp(N(ln median, sigma)) via Box–Muller, capped at `maxMs`. Real LLM
 * latencies are right-skewed; a few very slow answers are what hedging and TTFT limits are for.
 */
export function lognormal({ medianMs, sigma = 0.5, maxMs = Number.POSITIVE_INFINITY }: { medianMs: number; sigma?: number; maxMs?: number }): Latency {
  return (random) => {
    const u1 = Math.max(random(), Number.EPSILON);
    const u2 = random();
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return Math.min(maxMs, medianMs * Math.exp(sigma * z));
  };
}

export function toLatency(value: number | Latency | undefined): Latency {
  if (value === undefined) return fixed(0);
  return typeof value === 'number' ? fixed(value) : value;
}
