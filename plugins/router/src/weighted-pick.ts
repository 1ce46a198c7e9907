import type { RandomSource } from '@switchyard/core';

/**
 * Picks one item with probability proportional to its weight. Items with a weight of zero or
 * less are only picked (uniformly) when no item has a positive weight.
 */
export function weightedPick<T>(items: readonly T[], weightOf: (item: T) => number, random: RandomSource): T | undefined {
  if (items.length === 0) return undefined;
  let total = 0;
  for (const item of items) total += positive(weightOf(item));
  if (total <= 0) return items[Math.min(items.length - 1, Math.floor(random() * items.length))];
  let point = random() * total;
  for (const item of items) {
    const weight = positive(weightOf(item));
    if (weight === 0) continue;
    point -= weight;
    if (point < 0) return item;
  }
  // Floating-point rounding left a sliver at the top: the last positive item owns it.
  for (let i = items.length - 1; i >= 0; i--) if (positive(weightOf(items[i])) > 0) return items[i];
  return items[items.length - 1];
}

/**
 * A full fallback order: weighted sampling without replacement over the positive weights,
 * then the zero-weight items in their given order (they serve only as fallbacks).
 */
export function weightedOrder<T>(items: readonly T[], weightOf: (item: T) => number, random: RandomSource): T[] {
  const pool = items.filter((item) => positive(weightOf(item)) > 0);
  const out: T[] = [];
  while (pool.length > 0) {
    const picked = weightedPick(pool, weightOf, random)!;
    out.push(picked);
    pool.splice(pool.indexOf(picked), 1);
  }
  for (const item of items) if (!(positive(weightOf(item)) > 0)) out.push(item);
  return out;
}

function positive(weight: number): number {
  return Number.isFinite(weight) && weight > 0 ? weight : 0;
}
