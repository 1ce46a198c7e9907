/**
 * Spend forecasts: at the pace of the current UTC day or month so far, what it will have cost
 * by its end, and when each spend budget runs out. The pace is the period's spend over the
 * time elapsed in it (counted as at least an hour, so the first minutes of a day do not
 * project a burst over the whole of it): a run rate, as a bill's "month to date" is read.
 */
import { type SpendForecast } from '@switchyard/contracts';
import type { Pipeline } from '@switchyard/core';
import type { BudgetBook, SpendStatus } from './budgets.js';
import type { UsageTotals } from './usage-totals.js';
import { dayOf } from './usage-record.js';
import { windowOf, type Window } from './windows.js';

const HOUR = 3_600_000;

export type ForecastPeriod = SpendForecast['period'];

export const LIMIT_OF: Record<ForecastPeriod, 'spendPerDay' | 'spendPerMonth'> = { day: 'spendPerDay', month: 'spendPerMonth' };

export interface Projection {
  spentUsd: number;
  projectedUsd: number;
  /** USD per millisecond at this pace. */
  rate: number;
  /** When `maxUsd` is reached at this pace, if within the window (now when it already is). */
  exhaustsAt(maxUsd: number): number | undefined;
}

export function projectSpend(spentUsd: number, window: Window, now: number): Projection {
  const rate = spentUsd / Math.max(now - window.start, HOUR);
  return {
    spentUsd,
    projectedUsd: spentUsd + rate * Math.max(0, window.end - now),
    rate,
    exhaustsAt(maxUsd) {
      if (spentUsd >= maxUsd) return now;
      if (rate <= 0) return undefined;
      const at = now + (maxUsd - spentUsd) / rate;
      return at < window.end ? at : undefined;
    },
  };
}

const usd = (n: number) => Math.round(n * 1_000_000) / 1_000_000;

export async function forecastSpend(period: ForecastPeriod, totals: UsageTotals, book: BudgetBook, now: number): Promise<SpendForecast> {
  const window = windowOf(LIMIT_OF[period], now);
  const from = dayOf(window.start);
  const spent = (await totals.answer({ since: from, until: dayOf(now), groupBy: 'day' })).total.costUsd;
  const total = projectSpend(spent, window, now);
  const budgets = (await book.spendStatus(LIMIT_OF[period], now)).map((b) => budgetForecast(b, now));
  return { period, from, until: dayOf(window.end - 1), spentUsd: usd(spent), projectedUsd: usd(total.projectedUsd), ratePerHourUsd: usd(total.rate * HOUR), budgets };
}

function budgetForecast(b: SpendStatus, now: number): SpendForecast['budgets'][number] {
  const p = projectSpend(b.used, b.window, now);
  const at = p.exhaustsAt(b.max);
  return { scope: b.scope, limit: b.limit, maxUsd: b.max, spentUsd: usd(b.used), projectedUsd: usd(p.projectedUsd), exhaustsAt: at === undefined ? null : new Date(at).toISOString() };
}

export interface ForecastWatchOptions {
  everyMs: number;
  /** Share of the window that must have passed before its pace is trusted. */
  minElapsedShare: number;
}

/**
 * Looks at every spend budget on a timer (unref'd, on the pipeline's clock) and emits
 * `budget:forecast` when a budget starts or stops being on course to run out before its window
 * ends: plugin-alerts turns that into a `budget-forecast` alert ahead of time.
 */
export function watchBudgetForecasts(pipeline: Pipeline, book: BudgetBook, options: ForecastWatchOptions, onError: (error: unknown) => void): () => void {
  const { clock, events } = pipeline;
  /** Per budget and limit: the window it was last judged in, and whether it was on course to run out. */
  const last = new Map<string, { windowStart: number; exhausting: boolean }>();
  const check = async () => {
    const now = clock.now();
    for (const limit of ['spendPerDay', 'spendPerMonth'] as const) {
      for (const b of await book.spendStatus(limit, now)) {
        const p = projectSpend(b.used, b.window, now);
        const trusted = (now - b.window.start) / (b.window.end - b.window.start) >= options.minElapsedShare;
        const at = trusted ? p.exhaustsAt(b.max) : undefined;
        const key = `${b.scope}|${limit}`;
        const exhausting = at !== undefined;
        // Emitted on a change only; a new window's first look (too early to trust) ends the last one's incident.
        const before = last.get(key)?.exhausting ?? false;
        last.set(key, { windowStart: b.window.start, exhausting });
        if (before === exhausting) continue;
        events.emit('budget:forecast', { scope: b.scope, limit, maxUsd: b.max, spentUsd: usd(b.used), projectedUsd: usd(p.projectedUsd), exhaustsAt: at, windowEndsAt: b.window.end, exhausting });
      }
    }
  };
  let running = false;
  let timer = clock.setTimeout(function tick() {
    if (!running) {
      running = true;
      void check()
        .catch(onError)
        .finally(() => (running = false));
    }
    timer = clock.setTimeout(tick, options.everyMs);
    (timer as { unref?: () => void }).unref?.();
  }, options.everyMs);
  (timer as { unref?: () => void }).unref?.();
  return () => clock.clearTimeout(timer);
}
