/**
 * A StateStore with a record store behind it: soft keys live in the hot store only (memory or
 * Redis), durable keys (declared by the plugins, `declareDurableKeys`) also in the record store.
 *
 * - records (keys, teams, stored Responses, incidents): written to the record store first, so a
 *   write that resolves is fsynced or committed; then to the hot store, which serves the reads.
 *   A record store that does not answer turns the write into a 503 (nothing is half-written).
 * - tallies (spend, usage totals): counted in the hot store, where increments are atomic across
 *   gateways, and checkpointed to the record store every `flushMs` and on close. A kill loses at
 *   most one interval of them.
 * - restore: a hot store without the restored marker (a new process, a flushed or restarted
 *   Redis) gets every record back, counters added to whatever was counted since, under a lease
 *   so two gateways never add them twice.
 * - shared hot store (Redis): a durable key it does not have is read from the record store and
 *   put back in it; while the hot store is down, tallies wait rather than checkpoint the
 *   instance's partial local counts over the shared ones.
 * - first switch: a record store put behind a hot store that held the durable records alone
 *   (Redis with persistence) gets a copy of them once, at the first checkpoint after the plugins
 *   declared their keys, never over a record it already has; a marker record says it was done.
 */
import { isSwitchyardError, SwitchyardError } from './errors.js';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { DurableKeyRegistry, DurableKeys, DurableRecord, DurableRecordStore } from './durable-records.js';
import { readMany, type StateStore, type StoreAvailability } from './state-store.js';

/** Present in a hot store that holds the records (deleted by a flush, absent after a restart without persistence). */
const RESTORED_MARKER = 'switchyard:records:restored';
const RESTORE_LEASE = 'switchyard:records:restoring';
const RESTORE_LEASE_MS = 60_000;
/** In the record store once the hot store's durable keys were copied to it (the first switch). */
const SEEDED_MARKER = 'switchyard:records:seeded';
const SEED_LEASE = 'switchyard:records:seeding';

export interface RecordKeepingOptions {
  /** Longest a tally waits before its checkpoint (ms, at most 1000: "spend may lag by at most 1 s"). */
  flushMs?: number;
  /** The hot store is shared by several instances (Redis), so it may miss a record another wrote or a flush lost. */
  shared: boolean;
  clock?: Clock;
  /** A checkpoint that failed (retried at the next interval). */
  onError?: (error: unknown) => void;
}

type Kind = 'record' | 'tally';

/** Keys whose kind `kindOf` remembers before it starts again. */
const KINDS_REMEMBERED = 4_096;

export class RecordKeepingStore implements StateStore, DurableKeyRegistry {
  private readonly prefixes: [prefix: string, kind: Kind][] = [];
  /** Key → its kind (null: soft), for the last keys asked (`kindOf`). */
  private readonly kinds = new Map<string, Kind | null>();
  /** Tallies changed since their last checkpoint, with their expiry (epoch ms, null for never). */
  private dirty = new Map<string, number | null>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly clock: Clock;
  private readonly flushMs: number;
  private readonly holder = `records-${Math.random().toString(36).slice(2)}`;
  /** Declarations, owner → keys: for the docs' table and the status page. */
  readonly declared = new Map<string, DurableKeys>();
  /** Records restored into the hot store by the last restore. */
  restored = 0;
  /** Records the first switch copied from the hot store (0 until it ran, or when another instance did). */
  seeded = 0;
  private seedDone = false;

  constructor(
    readonly hot: StateStore,
    readonly records: DurableRecordStore,
    private readonly options: RecordKeepingOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.flushMs = Math.min(1_000, Math.max(10, options.flushMs ?? 500));
    if (hot.publish) this.publish = (channel, message) => hot.publish!(channel, message);
    if (hot.subscribe) this.subscribe = (channel, listener) => hot.subscribe!(channel, listener);
    // A hot store in this process holds every record (restored at open): its reads stay synchronous.
    if (hot.getManyNow && !options.shared) this.getManyNow = <T>(keys: readonly string[]) => hot.getManyNow!<T>(keys);
  }

  getManyNow?: StateStore['getManyNow'];

  /** The hot store's outages and the record store's, each told once. */
  watchAvailability(listener: (change: StoreAvailability) => void): () => void {
    const stops = [this.hot.watchAvailability?.(listener), this.records.watchAvailability?.(listener)];
    return () => stops.forEach((stop) => stop?.());
  }

  publish?: StateStore['publish'];
  subscribe?: StateStore['subscribe'];

  /** Opens the record store, restores into an empty hot store, starts the checkpoints. */
  async open(): Promise<void> {
    await this.records.open();
    try {
      await this.restoreIfEmpty();
    } catch (error) {
      // A shared record store that is down at start: serve from the hot store, restore at a later checkpoint.
      if (!this.options.shared) throw error;
      this.options.onError?.(error);
    }
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.flushMs);
    this.timer.unref?.();
  }

  keepDurable(owner: string, keys: DurableKeys): void {
    this.declared.set(owner, keys);
    for (const prefix of keys.records ?? []) this.prefixes.push([prefix, 'record']);
    for (const prefix of keys.tallies ?? []) this.prefixes.push([prefix, 'tally']);
    this.kinds.clear();
  }

  /**
   * Durable or not, and how: the longest declared prefix wins. Remembered per key (bounded): a
   * request with virtual keys counts the same half-dozen tallies every time, and the hot store has
   * already hashed each key, so a known one costs one Map probe where slicing its head and
   * asking the prefixes cost about 200 ns a key. A record's key is not remembered: records are
   * written once or seldom (a stored answer and its item index, a key, a team), and remembering
   * each stored answer's two keys was two inserts into the Map an answer, which every 2,048
   * answers cleared it of the tallies worth remembering.
   */
  kindOf(key: string): Kind | undefined {
    let kind = this.kinds.get(key);
    if (kind === undefined) {
      let longest = 0;
      kind = null;
      for (const [prefix, declared] of this.prefixes) {
        if (prefix.length > longest && key.startsWith(prefix)) {
          longest = prefix.length;
          kind = declared;
        }
      }
      if (kind === 'record') return kind;
      if (this.kinds.size >= KINDS_REMEMBERED) this.kinds.clear();
      this.kinds.set(key, kind);
    }
    return kind ?? undefined;
  }

  get available(): boolean | undefined {
    return this.hot.available;
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const value = await this.hot.get<T>(key);
    if (value !== undefined || !this.options.shared || !this.kindOf(key)) return value;
    return this.readThrough<T>(key);
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    const values = await readMany<T>(this.hot, keys);
    if (!this.options.shared) return values;
    return Promise.all(values.map((value, i) => (value !== undefined || !this.kindOf(keys[i]) ? value : this.readThrough<T>(keys[i]))));
  }

  /** A durable key the shared hot store lacks: from the record store, and back into the hot store (never over a newer write). */
  private async readThrough<T>(key: string): Promise<T | undefined> {
    let record: DurableRecord | undefined;
    try {
      record = await this.records.get(key);
    } catch {
      return undefined;
    }
    if (!record) return undefined;
    // A tally is not put back here: the restore adds it to what was counted since, exactly once.
    if (this.kindOf(key) !== 'record') return record.value as T;
    const ttlMs = this.ttlOf(record.expiresAt);
    if (this.hot.compareAndSet) await this.hot.compareAndSet(key, undefined, record.value, ttlMs).catch(() => undefined);
    return record.value as T;
  }

  async set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
    const kind = this.kindOf(key);
    if (kind === 'record') await this.write(() => (value === undefined ? this.records.delete(key) : this.records.put([{ key, value, expiresAt: this.expiresAt(ttlMs) }])));
    await this.hot.set(key, value, ttlMs);
    if (kind === 'tally') this.touch(key, ttlMs);
  }

  async delete(key: string): Promise<void> {
    if (this.kindOf(key)) {
      this.dirty.delete(key);
      await this.write(() => this.records.delete(key));
    }
    await this.hot.delete(key);
  }

  async compareAndSet<T = unknown>(key: string, expected: T | undefined, next: T, ttlMs?: number): Promise<boolean> {
    const kind = this.kindOf(key);
    if (kind !== 'record') {
      const written = this.hot.compareAndSet ? await this.hot.compareAndSet(key, expected, next, ttlMs) : (await this.hot.set(key, next, ttlMs), true);
      if (written && kind === 'tally') this.touch(key, ttlMs);
      return written;
    }
    const written = await this.write(() => this.records.compareAndSet(key, expected, next, this.expiresAt(ttlMs)));
    if (written) {
      if (next === undefined) await this.hot.delete(key);
      else await this.hot.set(key, next, ttlMs);
      return true;
    }
    // The hot copy was stale (a lost cache write, a flush): refresh it so the caller's next round sees the record.
    const current = await this.records.get(key).catch(() => undefined);
    if (current) await this.hot.set(key, current.value, this.ttlOf(current.expiresAt));
    else await this.hot.delete(key);
    return false;
  }

  async increment(key: string, by?: number, ttlMs?: number): Promise<number> {
    const value = await this.hot.increment(key, by, ttlMs);
    if (this.kindOf(key)) this.touch(key, ttlMs);
    return value;
  }

  acquireLease(key: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.hot.acquireLease(key, holder, ttlMs);
  }

  releaseLease(key: string, holder: string): Promise<void> {
    return this.hot.releaseLease(key, holder);
  }

  private touch(key: string, ttlMs: number | undefined): void {
    this.dirty.set(key, ttlMs === undefined ? (this.dirty.get(key) ?? null) : this.expiresAt(ttlMs));
  }

  /** Checkpoints the tallies changed since the last one (what the interval and close run). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushNow());
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    // A hot store serving from local memory has partial counts: they wait for the shared ones.
    if (isDown(this.hot)) return;
    // A shared hot store that lost everything (a flush, a restart without persistence) gets it back within one interval.
    const whole = !this.options.shared || (await this.restoreIfEmpty().catch((error: unknown) => (this.options.onError?.(error), false)));
    if (!whole) return;
    if (!this.seedDone) await this.seedIfNew().catch((error: unknown) => this.options.onError?.(error));
    // Until the records are back, the hot counts are partial: checkpointing them would overwrite the books.
    if (this.dirty.size === 0) return;
    const batch = this.dirty;
    this.dirty = new Map();
    try {
      const keys = [...batch.keys()];
      const values = await readMany(this.hot, keys);
      if (isDown(this.hot)) return this.requeue(batch);
      const records: DurableRecord[] = [];
      keys.forEach((key, i) => values[i] !== undefined && records.push({ key, value: values[i], expiresAt: batch.get(key)! }));
      await this.records.put(records);
    } catch (error) {
      this.requeue(batch);
      this.options.onError?.(error);
    }
  }

  private requeue(batch: Map<string, number | null>): void {
    for (const [key, expiresAt] of batch) if (!this.dirty.has(key)) this.dirty.set(key, expiresAt);
  }

  /**
   * Puts every record back into a hot store that lost them (or never had them). Counters are
   * added, not set: what was counted since the loss stays counted.
   */
  async restoreIfEmpty(): Promise<boolean> {
    // Never into a down store's local fallback: its counts would be added to the shared ones when it is back.
    if (isDown(this.hot)) return false;
    const marker = await this.hot.get(RESTORED_MARKER);
    // Answered from a fallback that just took over: nothing to learn from it.
    if (isDown(this.hot)) return false;
    if (marker !== undefined) return true;
    // Another instance is restoring: not whole yet.
    if (!(await this.hot.acquireLease(RESTORE_LEASE, this.holder, RESTORE_LEASE_MS)) || isDown(this.hot)) return false;
    try {
      // Another instance may have finished between the check and the lease.
      if ((await this.hot.get(RESTORED_MARKER)) !== undefined) return true;
      const now = this.clock.now();
      let restored = 0;
      for (const record of await this.records.list()) {
        if ((record.expiresAt !== null && record.expiresAt <= now) || record.key === SEEDED_MARKER) continue;
        const ttlMs = this.ttlOf(record.expiresAt);
        if (typeof record.value === 'number') await this.addTo(record.key, record.value, ttlMs);
        else if (this.hot.compareAndSet) await this.hot.compareAndSet(record.key, undefined, record.value, ttlMs);
        else await this.hot.set(record.key, record.value, ttlMs);
        // Gone meanwhile: what went to the fallback vanishes with it, the next checkpoint tries again.
        if (isDown(this.hot)) return false;
        restored++;
      }
      await this.hot.set(RESTORED_MARKER, { at: new Date(now).toISOString(), records: restored });
      this.restored = restored;
      return true;
    } finally {
      await this.hot.releaseLease(RESTORE_LEASE, this.holder);
    }
  }

  /**
   * The first switch: copies the durable keys the hot store holds into a record store that was
   * never seeded, each only where the record store has none (a write since went through to it),
   * under a lease so two instances copy once. Needs the plugins' declarations (the first
   * checkpoint after them) and a hot store that can list its keys.
   */
  async seedIfNew(): Promise<void> {
    if (this.seedDone || this.prefixes.length === 0 || !this.hot.entriesWithPrefix) return;
    if ((await this.records.get(SEEDED_MARKER)) !== undefined) {
      this.seedDone = true;
      return;
    }
    if (!(await this.hot.acquireLease(SEED_LEASE, this.holder, RESTORE_LEASE_MS)) || isDown(this.hot)) return;
    try {
      if ((await this.records.get(SEEDED_MARKER)) !== undefined) return void (this.seedDone = true);
      const now = this.clock.now();
      let copied = 0;
      for (const [prefix] of this.prefixes) {
        for (const entry of await this.hot.entriesWithPrefix(prefix)) {
          // A shorter prefix's listing also holds a longer one's keys: each key is copied once.
          if (this.kindOf(entry.key) === undefined || !this.ownPrefix(entry.key, prefix)) continue;
          if (await this.records.compareAndSet(entry.key, undefined, entry.value, entry.ttlMs === undefined ? null : now + entry.ttlMs)) copied++;
        }
      }
      await this.records.put([{ key: SEEDED_MARKER, value: { at: new Date(now).toISOString(), records: copied }, expiresAt: null }]);
      this.seeded = copied;
      this.seedDone = true;
    } finally {
      await this.hot.releaseLease(SEED_LEASE, this.holder);
    }
  }

  /** `prefix` is the longest declared prefix of `key`. */
  private ownPrefix(key: string, prefix: string): boolean {
    for (const [other] of this.prefixes) if (other.length > prefix.length && other.startsWith(prefix) && key.startsWith(other)) return false;
    return true;
  }

  /**
   * Adds a restored counter to what was counted since, by compare-and-set rather than
   * `increment`: a store falling back to local memory (store-redis) would add an increment to
   * the shared count again when it is back, a compare-and-set it simply forgets.
   */
  private async addTo(key: string, by: number, ttlMs: number | undefined): Promise<void> {
    for (let round = 0; round < 32; round++) {
      const current = await this.hot.get<number>(key);
      const next = (typeof current === 'number' ? current : 0) + by;
      if (!this.hot.compareAndSet) return this.hot.set(key, next, ttlMs);
      if (await this.hot.compareAndSet(key, current, next, ttlMs)) return;
    }
    throw new Error(`${key} kept changing while it was restored`);
  }

  private async write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isSwitchyardError(error)) throw error;
      throw new SwitchyardError('overloaded', `the record store (${this.records.where}) did not take the write (${(error as Error).message}); nothing was changed, try again`, {
        code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE',
        status: 503,
        retryAfterMs: 5_000,
        retryable: false,
        cause: error,
      });
    }
  }

  private expiresAt(ttlMs: number | undefined): number | null {
    return ttlMs === undefined || ttlMs === Number.POSITIVE_INFINITY ? null : this.clock.now() + ttlMs;
  }

  private ttlOf(expiresAt: number | null): number | undefined {
    return expiresAt === null ? undefined : Math.max(1, expiresAt - this.clock.now());
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      await this.flush();
    } finally {
      await this.records.close();
      await this.hot.close?.();
    }
  }
}

/** A shared store serving from local memory (store-redis during an outage). */
function isDown(store: StateStore): boolean {
  return store.available === false;
}
