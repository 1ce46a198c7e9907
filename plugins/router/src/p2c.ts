import type { RandomSource } from '@switchyard/core';

/**
 * Power of two choices: draw two distinct items at random and keep the one with the lower
 * load (ties go to the first draw). Avoids the herd that "always pick the least loaded" causes.
 */
export function p2c<T>(items: readonly T[], loadOf: (item: T) => number, random: RandomSource): T | undefined {
  if (items.length <= 1) return items[0];
  const a = Math.min(items.length - 1, Math.floor(random() * items.length));
  let b = Math.min(items.length - 2, Math.floor(random() * (items.length - 1)));
  if (b >= a) b++;
  return loadOf(items[b]) < loadOf(items[a]) ? items[b] : items[a];
}
