/**
 * Durations in scenario files: `30s`, `2d3h`, `1h30m`, `250ms`, or a number of milliseconds.
 * Days matter here (simulations span weeks), which core's header parser does not need.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds, or undefined when `value` is not a duration. */
export function parseSimDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, '');
  if (text === '') return undefined;
  let total = 0;
  let matched = '';
  for (let m = PART.exec(text); m; m = PART.exec(text)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched += m[0];
  }
  PART.lastIndex = 0;
  return matched === text ? total : undefined;
}

/** A compact label: `2d3h`, `45m`, `1.5s`, `320ms`. */
export function formatSimDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(ms < 10_000 ? 2 : 1))}s`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000);
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.slice(0, 2).join('');
}
