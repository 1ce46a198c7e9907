/**
 * Forgets the expired entries of a Map a slice at a time, as writes come: each `written()` counts,
 * and every `SWEEP_EVERY` writes the sweep looks at the next `SWEPT_PER_SWEEP` entries, going on
 * from where it stopped (a Map's iterator also visits what was added after it started). No write
 * pays for a whole pass, which over a million stored answers held the event loop for 10 ms.
 *
 * Eight entries are looked at for each write, so an entry is found at most one pass (size / 8
 * writes) after it expired, and a Map whose entries live a fixed time holds at most 8/7 of those
 * alive. An expired entry already reads as absent: the sweep only gives its memory back.
 */

/** Writes between two slices of the sweep (the clock is read once a slice). */
const SWEEP_EVERY = 64;
/** Entries looked at a slice: eight a write. */
const SWEPT_PER_SWEEP = 512;

export class ExpirySweep<V> {
  private writes = 0;
  private cursor: Iterator<[string, V]> | undefined;

  constructor(
    private readonly entries: Map<string, V>,
    /** Whether the entry has expired at `now`. */
    private readonly expired: (value: V, now: number) => boolean,
    private readonly now: () => number,
  ) {}

  /** A write happened: every `SWEEP_EVERY` of them, the next slice of the sweep. */
  written(count = 1): void {
    this.writes += count;
    if (this.writes < SWEEP_EVERY) return;
    this.step(Math.floor(this.writes / SWEEP_EVERY) * SWEPT_PER_SWEEP);
    this.writes %= SWEEP_EVERY;
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
