/**
 * The fixed windows budgets and limits count in, on the pipeline clock: the UTC day and the UTC
 * month for spend, the UTC minute for requests and tokens. Spend is counted in integer
 * micro-dollars (StateStore `increment` is exact on integers, on Redis too).
 */
export type Period = 'day' | 'month';

export const PERIODS: readonly Period[] = ['day', 'month'];

const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

/** Counters outlive their window a little, so yesterday's and last month's spend can still be read. */
const KEEP_AFTER_MS: Record<Period, number> = { day: 2 * DAY_MS, month: 35 * DAY_MS };

export interface Window {
  period: Period;
  /** `2026-05-04` or `2026-05`. */
  id: string;
  /** When the next window starts (epoch ms). */
  resetsAt: number;
}

/** The window each period was last asked for: asked for every scope of every request, it is the same object until it resets. */
const current: Record<Period, { window: Window; startsAt: number } | undefined> = { day: undefined, month: undefined };

export function windowOf(period: Period, now: number): Window {
  let known = current[period];
  if (!known || now < known.startsAt || now >= known.window.resetsAt) {
    // A date and its ISO text cost a microsecond: made once per window, not per scope and request.
    const date = new Date(now);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    const startsAt = period === 'day' ? Date.UTC(year, month, date.getUTCDate()) : Date.UTC(year, month, 1);
    const resetsAt = period === 'day' ? Date.UTC(year, month, date.getUTCDate() + 1) : Date.UTC(year, month + 1, 1);
    current[period] = known = { window: { period, id: date.toISOString().slice(0, period === 'day' ? 10 : 7), resetsAt }, startsAt };
  }
  return known.window;
}

/** A TTL for a window's counters written at `now`: they outlive it a little. */
export function counterTtlMs(window: Window, now: number): number {
  return window.resetsAt - now + KEEP_AFTER_MS[window.period];
}

export function minuteOf(now: number): number {
  return Math.floor(now / MINUTE_MS);
}

export const toMicros = (usd: number) => Math.round(usd * 1_000_000);
export const fromMicros = (micros: number) => micros / 1_000_000;

export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd >= 1 ? 2 : 4)}`;
}
