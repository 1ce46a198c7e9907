/** Counts in time buckets over a sliding window on the injected clock (bounded memory per key). */
const BUCKETS = 10;

export class SlidingCount {
  private readonly buckets = new Map<string, { start: number; counts: number[] }[]>();

  constructor(private readonly windowMs: number) {}

  add(key: string, now: number, values: number[]): void {
    const size = this.windowMs / BUCKETS;
    const start = Math.floor(now / size) * size;
    let list = this.buckets.get(key);
    if (!list) this.buckets.set(key, (list = []));
    const last = list[list.length - 1];
    if (last && last.start === start) values.forEach((v, i) => (last.counts[i] = (last.counts[i] ?? 0) + v));
    else list.push({ start, counts: [...values] });
    this.prune(list, now);
  }

  /** Sums of each value over the window ending at `now`. */
  sum(key: string, now: number): number[] {
    const list = this.buckets.get(key);
    if (!list) return [];
    this.prune(list, now);
    const out: number[] = [];
    for (const b of list) b.counts.forEach((v, i) => (out[i] = (out[i] ?? 0) + v));
    return out;
  }

  keys(): string[] {
    return [...this.buckets.keys()];
  }

  private prune(list: { start: number }[], now: number): void {
    while (list.length > 0 && list[0].start <= now - this.windowMs) list.shift();
  }
}
