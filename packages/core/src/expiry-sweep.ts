/**
 * Forgets the expired entries of a Map a slice at a time, as entries are added: each `added()`
 * counts, and every `SWEEP_EVERY` additions the sweep looks at the next `SWEPT_PER_SWEEP` entries,
 * going on from where it stopped (a Map's iterator also visits what was added after it started).
 * No addition pays for a whole pass, which over a million stored answers held the event loop for
 * 10 ms.
 *
 * Eight entries are looked at for each one added, so an entry is found at most one pass (size / 8
 * additions) after it expired, and a Map whose entries live a fixed time holds at most 8/7 of those
 * alive. Only additions count: a write to a key already held (a counter's increment, a lease
 * renewed) does not grow the Map, and counting it looked at eight entries for nothing (a dozen
 * counters a request). An expired entry already reads as absent: the sweep only gives its memory
 * back.
 */

/** Additions between two slices of the sweep (the clock is read once a slice). */
const SWEEP_EVERY = 64;
/** Entries looked at a slice: eight an addition. */
const SWEPT_PER_SWEEP = 512;

export class ExpirySweep<V> {
  private additions = 0;
  private cursor: Iterator<[string, V]> | undefined;

  constructor(
    private readonly entries: Map<string, V>,
    /** Whether the entry has expired at `now`. */
    private readonly expired: (value: V, now: number) => boolean,
    private readonly now: () => number,
  ) {}

  /** `count` entries were added to the Map: every `SWEEP_EVERY` of them, the next slice of the sweep. */
  added(count = 1): void {
    if (count <= 0) return;
    this.additions += count;
    if (this.additions < SWEEP_EVERY) return;
    this.step(Math.floor(this.additions / SWEEP_EVERY) * SWEPT_PER_SWEEP);
    this.additions %= SWEEP_EVERY;
  }

  /** Looks at up to `count` entries, deleting the expired ones; one pass at most (a small Map is not walked again and again). */
  private step(count: number): void {
    const now = this.now();
    for (let i = 0; i < count; i++) {
      this.cursor ??= this.entries.entries();
      const next = this.cursor.next();
      if (next.done) {
        this.cursor = undefined;
        return;
      }
      const [key, value] = next.value;
      if (this.expired(value, now)) this.entries.delete(key);
    }
  }
}
