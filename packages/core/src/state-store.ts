/**
 * Shared state for policies: counters with a time to live, plain values and leases. The
 * in-memory store is the default; a Redis store implements the same interface so several
 * gateway instances share breakers, cooldowns, health and quota counters.
 */
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { ExpirySweep } from './expiry-sweep.js';

export interface StateStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Optional: several keys in one read (Redis: one MGET), in order; `readMany()` falls back to `get`. */
  getMany?<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]>;
  /**
   * Optional, for a store whose state lives in this process: `getMany` answered at once. A
   * policy that only reads on the healthy path (a closed breaker, no cooldown) then adds no
   * promise to a request; `readManyNow()` falls back to `getMany`. A subclass that changes
   * how `get` or `getMany` read overrides this too.
   */
  getManyNow?<T = unknown>(keys: readonly string[]): (T | undefined)[];
  /**
   * `value` is JSON-serializable, or a `JsonText` (JSON text the writer already holds): a store
   * that writes values out as JSON writes a JsonText's text as it is (`jsonTextOf`); one that
   * keeps values in memory may keep it, and `get` may then return it.
   */
  set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Adds `by` to a numeric counter (created at 0) and returns the new value. */
  increment(key: string, by?: number, ttlMs?: number): Promise<number>;
  /** Takes the lease if it is free or expired; true when `holder` now holds it. */
  acquireLease(key: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(key: string, holder: string): Promise<void>;
  /**
   * Writes `next` (with the TTL semantics of `set`) only while the key still holds `expected`,
   * compared as JSON text (`undefined`: the key is absent); true when it wrote. Pass back the
   * value `get` returned. Optional: without it, callers can only serialise read-modify-write
   * within their own process, and concurrent writers on other instances may overwrite each other.
   */
  compareAndSet?<T = unknown>(key: string, expected: T | undefined, next: T, ttlMs?: number): Promise<boolean>;
  /**
   * Optional: a message to the other instances sharing this store (Redis pub/sub). The
   * publishing instance does not receive its own messages.
   */
  publish?(channel: string, message: unknown): Promise<void>;
  /** Optional: listens to the other instances' messages on `channel`; returns the unsubscribe. */
  subscribe?(channel: string, listener: (message: unknown) => void): () => void;
  close?(): Promise<void>;
  /**
   * Optional: the live keys starting with `prefix`, with their values and what is left of their
   * time to live (ms; absent: none). Read once, when a record store is put behind a store that
   * held durable records alone (RecordKeepingStore's first-switch copy), never per request.
   */
  entriesWithPrefix?(prefix: string): Promise<{ key: string; value: unknown; ttlMs?: number }[]>;
  /**
   * Optional, for a store with a server behind it: told once when it stops answering and once
   * when it answers again, so an operator's log has one outage line and one recovery line.
   * Returns the unsubscribe.
   */
  watchAvailability?(listener: (change: StoreAvailability) => void): () => void;
  /**
   * Optional, for a shared store that answers from this instance's memory while its backend is
   * down (store-redis): false while it does. Whatever needs the shared truth (idempotency keys,
   * the usage totals) reads it after an operation: false then means the answer was local.
   */
  readonly available?: boolean;
}

/** A store's server stopped answering (`store:outage`, with why) or answers again (`store:recovered`). */
export interface StoreAvailability {
  event: 'store:outage' | 'store:recovered';
  /** The server, without credentials: `redis://127.0.0.1:6379`, `PostgreSQL at …`. */
  where: string;
  error?: Error;
}

interface Entry { value: unknown; expiresAt: number }

/** A MemoryStateStore written out: `expiresAt` is epoch ms on the store's clock, null for never. */
export interface StoreSnapshot {
  version: 1;
  savedAt: number;
  entries: [key: string, value: unknown, expiresAt: number | null][];
}

export class MemoryStateStore implements StateStore {
  private readonly entries = new Map<string, Entry>();
  /** Expired entries nobody reads again leave a slice at a time (bounded memory, no pause). */
  private readonly sweep: ExpirySweep<Entry>;

  async close(): Promise<void> {
    this.entries.clear();
  }

  constructor(private readonly clock: Clock = systemClock) {
    this.sweep = new ExpirySweep(this.entries, (entry, now) => entry.expiresAt <= now, () => clock.now());
  }

  /** The entry under `key` unless it expired; `now` when the caller read the clock already. */
  private live(key: string, now?: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most entries never expire: no clock read for them.
    if (entry.expiresAt !== Number.POSITIVE_INFINITY && entry.expiresAt <= (now ?? this.clock.now())) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Sets an entry; the sweep counts it when the key is new (live() drops an expired one first, so it is new then too). */
  private put(key: string, entry: Entry): void {
    const size = this.entries.size;
    this.entries.set(key, entry);
    if (this.entries.size > size) this.sweep.added();
  }

  private expiry(ttlMs?: number): number {
    return ttlMs === undefined ? Number.POSITIVE_INFINITY : this.clock.now() + ttlMs;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.live(key)?.value as T | undefined;
  }

  async entriesWithPrefix(prefix: string): Promise<{ key: string; value: unknown; ttlMs?: number }[]> {
    const now = this.clock.now();
    const out: { key: string; value: unknown; ttlMs?: number }[] = [];
    for (const key of this.entries.keys()) {
      const entry = key.startsWith(prefix) ? this.live(key) : undefined;
      if (entry) out.push(entry.expiresAt === Number.POSITIVE_INFINITY ? { key, value: entry.value } : { key, value: entry.value, ttlMs: entry.expiresAt - now });
    }
    return out;
  }

  async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return this.getManyNow<T>(keys);
  }

  getManyNow<T>(keys: readonly string[]): (T | undefined)[] {
    return keys.map((key) => this.live(key)?.value as T | undefined);
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    this.put(key, { value, expiresAt: this.expiry(ttlMs) });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async compareAndSet<T>(key: string, expected: T | undefined, next: T, ttlMs?: number): Promise<boolean> {
    // No await between the comparison and the write: atomic for every caller sharing this store.
    // The value read from this store is the very object a caller compares with (usage totals'
    // day documents, budgets): equal without serializing both, which grew with the document.
    const current = this.live(key)?.value;
    if (current !== expected && JSON.stringify(current) !== JSON.stringify(expected)) return false;
    if (next === undefined) this.entries.delete(key);
    else this.put(key, { value: next, expiresAt: this.expiry(ttlMs) });
    return true;
  }

  async increment(key: string, by = 1, ttlMs?: number): Promise<number> {
    // One clock read for a counter with a window: its expiry check and its new expiry.
    const now = ttlMs === undefined ? undefined : this.clock.now();
    const entry = this.live(key, now);
    const next = (typeof entry?.value === 'number' ? entry.value : 0) + by;
    const expiresAt = now === undefined ? Number.POSITIVE_INFINITY : now + ttlMs!;
    // A counter's entry is changed in place (no entry object leaves the store): a dozen counters a request with virtual keys.
    if (entry) {
      entry.value = next;
      if (ttlMs !== undefined) entry.expiresAt = expiresAt;
    } else this.put(key, { value: next, expiresAt });
    return next;
  }

  async acquireLease(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (entry && entry.value !== holder) return false;
    this.put(key, { value: holder, expiresAt: this.expiry(ttlMs) });
    return true;
  }

  async releaseLease(key: string, holder: string): Promise<void> {
    if (this.live(key)?.value === holder) this.entries.delete(key);
  }

  /** Every live entry, for a snapshot file that the next start loads (`store: { snapshot }`). */
  snapshot(): StoreSnapshot {
    const now = this.clock.now();
    const entries: StoreSnapshot['entries'] = [];
    for (const [key, entry] of this.entries) if (entry.expiresAt > now) entries.push([key, entry.value, Number.isFinite(entry.expiresAt) ? entry.expiresAt : null]);
    return { version: 1, savedAt: now, entries };
  }

  /** Loads a snapshot's entries that have not expired since; returns how many. */
  restore(snapshot: StoreSnapshot): number {
    const now = this.clock.now();
    let loaded = 0;
    for (const [key, value, expiresAt] of snapshot.entries) {
      if (expiresAt !== null && expiresAt <= now) continue;
      this.entries.set(key, { value, expiresAt: expiresAt ?? Number.POSITIVE_INFINITY });
      loaded++;
    }
    return loaded;
  }

  /** Entries held now (expired ones are dropped first); for tests and the status page. */
  size(): number {
    for (const key of [...this.entries.keys()]) this.live(key);
    return this.entries.size;
  }
}

/** Several keys in one read when the store can (one round trip to Redis), else one `get` each. */
export function readMany<T>(store: StateStore, keys: readonly string[]): Promise<(T | undefined)[]> {
  return store.getMany ? store.getMany<T>(keys) : Promise.all(keys.map((key) => store.get<T>(key)));
}

/**
 * `readMany`, answered at once when the store holds its state in this process: an array now,
 * else a promise of one (tell them apart with `Array.isArray`).
 */
export function readManyNow<T>(store: StateStore, keys: readonly string[]): (T | undefined)[] | Promise<(T | undefined)[]> {
  return store.getManyNow ? store.getManyNow<T>(keys) : readMany<T>(store, keys);
}
