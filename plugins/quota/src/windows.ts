/** Fixed accounting windows on the pipeline clock: the minute, the UTC day, the UTC month. */
import type { LimitName } from './options.js';

export interface Window {
  start: number;
  end: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export function windowOf(limit: LimitName, now: number): Window {
  if (limit === 'rpm' || limit === 'tpm') {
    const start = Math.floor(now / MINUTE) * MINUTE;
    return { start, end: start + MINUTE };
  }
  if (limit === 'spendPerDay') {
    const start = Math.floor(now / DAY) * DAY;
    return { start, end: start + DAY };
  }
  const d = new Date(now);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}
