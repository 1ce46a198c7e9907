/**
 * Two kinds of state. Soft state (the StateStore: breakers, health, cooldowns, pacing, counters
 * of the current minute, the cache) may be lost: it rebuilds itself within minutes. Durable
 * records (virtual keys and teams, spend per day and month, usage totals, stored Responses,
 * alert incidents) must survive a process kill and a Redis flush: they are kept in a
 * DurableRecordStore (a fsynced journal for one instance, PostgreSQL for several) behind the
 * StateStore the plugins already use. Each plugin says which of its keys are durable with
 * `declareDurableKeys`; everything it does not name stays soft.
 */
import type { StateStore, StoreAvailability } from './state-store.js';

/** Key prefixes a plugin keeps durably. */
export interface DurableKeys {
  /** Written to the record store before the write resolves (fsynced or committed): keys, teams, stored Responses, incidents. */
  records?: readonly string[];
  /** Counted in the hot store and checkpointed to the record store within `flushMs`: spend counters, usage totals. */
  tallies?: readonly string[];
}

/** One durable record; `expiresAt` is epoch ms, null for never. */
export interface DurableRecord {
  key: string;
  value: unknown;
  expiresAt: number | null;
}

export interface DurableRecordStore {
  /** Where the records live, for messages and logs (never a password). */
  readonly where: string;
  /** Opens the file or the pool, runs the migrations; rejects with a coded error when it cannot. */
  open(): Promise<void>;
  /** The live record (an expired one reads as absent). */
  get(key: string): Promise<DurableRecord | undefined>;
  /** Written durably (fsynced, committed) when it resolves; all of them or none. */
  put(records: readonly DurableRecord[]): Promise<void>;
  delete(key: string): Promise<void>;
  /** As StateStore.compareAndSet, on the record store (the system of record decides). */
  compareAndSet<T = unknown>(key: string, expected: T | undefined, next: T | undefined, expiresAt: number | null): Promise<boolean>;
  /** Every live record: what a restart (or an emptied Redis) is restored from. */
  list(): Promise<DurableRecord[]>;
  /** As StateStore.watchAvailability: one `store:outage` and one `store:recovered` per outage. */
  watchAvailability?(listener: (change: StoreAvailability) => void): () => void;
  /** False while the record store does not answer (writes are then refused with a 503). */
  readonly available?: boolean;
  close(): Promise<void>;
}

/** The part of a StateStore that keeps durable records (RecordKeepingStore); plain stores keep everything soft. */
export interface DurableKeyRegistry {
  keepDurable(owner: string, keys: DurableKeys): void;
}

/**
 * Says which of a plugin's keys are durable records. A store without a record store behind it
 * ignores it (everything stays where it is); call it in `apply`, before the first write.
 */
export function declareDurableKeys(store: StateStore, owner: string, keys: DurableKeys): void {
  (store as Partial<DurableKeyRegistry>).keepDurable?.(owner, keys);
}
