/**
 * Where virtual keys and team budgets live: one document per key and per team in the
 * StateStore (shared and exact across gateways on Redis), an index of ids for listing, and a
 * cache per gateway so the key check on the request path reads nothing most of the time.
 *
 * Cache invalidation: every write publishes the changed id on the store's pub/sub; the other
 * gateways drop their copy at once. Without pub/sub (or while it reconnects) a copy is trusted
 * for `ttlMs` at most. A read that was already under way when its id changed is not cached, so
 * an invalidation can never be undone by a late answer. While a shared store is down, copies
 * are kept (keys that worked keep working) and writes are refused (they would be lost).
 */
import { SwitchyardError, type Clock, type StateStore } from '@switchyard/core';
import { readMany } from '@switchyard/core/internal';
import type { CallerIdentity } from '@switchyard/core';
import { identityOf, type KeyRecord } from './key-record.js';
import { STAND_IN_HASH } from './key-secret.js';
import { modelMatcher, type ModelMatcher } from './model-match.js';
import type { Budget } from './options.js';
import { StoreDocuments, type Change } from './store-documents.js';
import { TENANTS_ERRORS } from './error-codes.js';

export interface TeamRecord {
  name: string;
  budget?: Budget;
  updatedAt: string;
}

/** A key as the request path needs it: hashes decoded, identity built once. */
export interface KeyEntry {
  record: KeyRecord | undefined;
  hash: Buffer;
  previous: { hash: Buffer; until: number } | undefined;
  identity: CallerIdentity | undefined;
  expiresAt: number;
  allows: ModelMatcher;
  fetchedAt: number;
}

interface TeamEntry {
  team: TeamRecord | undefined;
  fetchedAt: number;
}

interface Change_ {
  kind: 'key' | 'team';
  id: string;
}

export function entryOf(record: KeyRecord | undefined, fetchedAt: number): KeyEntry {
  if (!record) return { record, hash: STAND_IN_HASH, previous: undefined, identity: undefined, expiresAt: Number.POSITIVE_INFINITY, allows: modelMatcher([]), fetchedAt };
  const previous = record.previous ? { hash: Buffer.from(record.previous.hash, 'base64url'), until: Date.parse(record.previous.until) } : undefined;
  return {
    record,
    hash: Buffer.from(record.hash, 'base64url'),
    previous,
    identity: identityOf(record),
    expiresAt: record.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(record.expiresAt),
    allows: modelMatcher(record.models),
    fetchedAt,
  };
}

export class KeyDirectory {
  private readonly keys = new Map<string, KeyEntry>();
  private readonly teams = new Map<string, TeamEntry>();
  /** Reads under way: an invalidation removes its id, and the read then does not cache. */
  private readonly loading = new Map<string, Promise<unknown>>();
  private readonly documents: StoreDocuments;
  private readonly channel: string;
  clock: Clock;
  ttlMs: number;
  maxEntries: number;

  constructor(
    private readonly store: StateStore,
    private readonly prefix: string,
    settings: { clock: Clock; ttlMs: number; maxEntries: number },
  ) {
    this.clock = settings.clock;
    this.ttlMs = settings.ttlMs;
    this.maxEntries = settings.maxEntries;
    this.documents = new StoreDocuments(store);
    this.channel = `${prefix}:changes`;
    store.subscribe?.(this.channel, (message) => {
      const change = message as Change_;
      if (change && typeof change.id === 'string') this.forget(change.kind, change.id);
    });
  }

  keyKey(id: string): string {
    return `${this.prefix}:key:${id}`;
  }

  private teamKey(name: string): string {
    return `${this.prefix}:team:${name}`;
  }

  private forget(kind: Change_['kind'], id: string): void {
    const cacheKey = `${kind}:${id}`;
    this.loading.delete(cacheKey);
    if (kind === 'key') this.keys.delete(id);
    else this.teams.delete(id);
  }

  /**
   * True while a shared store says it cannot answer (store-redis serves from this instance's
   * memory meanwhile, which has no keys): what this gateway read before is kept until it answers.
   */
  get storeDown(): boolean {
    return (this.store as { available?: boolean }).available === false;
  }

  /** The key's entry: at once from the cache, else a promise of one store read. */
  key(id: string): KeyEntry | Promise<KeyEntry> {
    const cached = this.keys.get(id);
    if (cached && (this.clock.now() - cached.fetchedAt < this.ttlMs || this.storeDown)) return cached;
    return this.load(`key:${id}`, this.keys, () => this.store.get<KeyRecord>(this.keyKey(id)).then((record) => entryOf(record, this.clock.now())));
  }

  /** The team's record (its budget) as the store has it: at once from the cache, else a promise. */
  team(name: string): TeamRecord | undefined | Promise<TeamRecord | undefined> {
    const cached = this.teams.get(name);
    if (cached && (this.clock.now() - cached.fetchedAt < this.ttlMs || this.storeDown)) return cached.team;
    const loaded = this.load(`team:${name}`, this.teams, () => this.store.get<TeamRecord>(this.teamKey(name)).then((team) => ({ team, fetchedAt: this.clock.now() })));
    return loaded.then((entry) => entry.team);
  }

  private load<E>(cacheKey: string, into: Map<string, E>, read: () => Promise<E>): Promise<E> {
    const running = this.loading.get(cacheKey) as Promise<E> | undefined;
    if (running) return running;
    const id = cacheKey.slice(cacheKey.indexOf(':') + 1);
    const promise: Promise<E> = read().then((entry) => {
      // Invalidated meanwhile (or superseded): answer this caller, cache nothing.
      if (this.loading.get(cacheKey) === promise) {
        this.loading.delete(cacheKey);
        into.delete(id);
        into.set(id, entry);
        if (into.size > this.maxEntries) into.delete(into.keys().next().value as string);
      }
      return entry;
    });
    this.loading.set(cacheKey, promise);
    promise.catch(() => this.loading.get(cacheKey) === promise && this.loading.delete(cacheKey));
    return promise;
  }

  /** The key's record as the store has it now (the admin API's reads: no cache). */
  readKey(id: string): Promise<KeyRecord | undefined> {
    return this.fromStore(() => this.store.get<KeyRecord>(this.keyKey(id)));
  }

  /** Read-modify-write of a key's record; the other gateways drop their copy. */
  async updateKey(id: string, change: Change<KeyRecord>): Promise<{ value: KeyRecord | undefined; written: boolean }> {
    const result = await this.fromStore(() => this.documents.update<KeyRecord>(this.keyKey(id), change));
    if (result.written) await this.changed('key', id);
    return result;
  }

  async updateTeam(name: string, change: Change<TeamRecord>): Promise<TeamRecord | undefined> {
    await this.addToIndex('teams', name);
    const result = await this.fromStore(() => this.documents.update<TeamRecord>(this.teamKey(name), change));
    if (result.written) await this.changed('team', name);
    return result.value;
  }

  /** Listed before the record is written: a crash between the two leaves an id without a record (skipped), never a key nobody can list. */
  addToIndex(index: 'keys' | 'teams', id: string): Promise<unknown> {
    return this.fromStore(() => this.documents.update<string[]>(`${this.prefix}:${index}`, (ids) => (ids?.includes(id) ? undefined : [...(ids ?? []), id])));
  }

  listKeys(): Promise<KeyRecord[]> {
    return this.fromStore(async () => {
      const ids = (await this.store.get<string[]>(`${this.prefix}:keys`)) ?? [];
      const records = await readMany<KeyRecord>(this.store, ids.map((id) => this.keyKey(id)));
      return records.filter((r): r is KeyRecord => r !== undefined);
    });
  }

  listTeams(): Promise<TeamRecord[]> {
    return this.fromStore(async () => {
      const names = (await this.store.get<string[]>(`${this.prefix}:teams`)) ?? [];
      const teams = await readMany<TeamRecord>(this.store, names.map((name) => this.teamKey(name)));
      return teams.filter((t): t is TeamRecord => t !== undefined);
    });
  }

  /**
   * An admin read or write answered by the shared store itself, or refused with a 503. A store
   * that stalls mid-operation answers from this instance's memory (empty of keys): without the
   * check after it, a revocation would read "no such key" (a 404) and change nothing, and a
   * write would land in memory and vanish when the store is back.
   */
  private async fromStore<T>(work: () => Promise<T>): Promise<T> {
    if (this.storeDown) {
      // One read asks the store whether it answers again (nothing else may, on a quiet gateway).
      await this.store.get(`${this.prefix}:probe`).catch(() => undefined);
      this.assertAnswering();
    }
    const result = await work();
    this.assertAnswering();
    return result;
  }

  private assertAnswering(): void {
    if (!this.storeDown) return;
    throw new SwitchyardError('overloaded', 'the store that holds the keys (Redis) is unavailable, so the change would be lost or the answer wrong; try again once it answers', { code: TENANTS_ERRORS.storeUnavailable, status: 503, retryAfterMs: 5_000, retryable: false });
  }

  private async changed(kind: Change_['kind'], id: string): Promise<void> {
    this.forget(kind, id);
    await this.store.publish?.(this.channel, { kind, id } satisfies Change_);
  }
}
