/**
 * A StateStore on Redis, so several gateway instances share breakers, cooldowns, health and
 * quota counters. Values are JSON; counters, leases and compare-and-set are atomic on the server.
 *
 * Redis being down never fails a request: while it is unreachable or slow, each operation is
 * answered from this instance's memory (whenUnavailable: 'local', the default) or rejected
 * with a coded error ('throw'), after at most one command timeout.
 */
import { createRequire } from 'node:module';
import { REDIS_STORE_ERRORS } from './error-codes.js';
import { MemoryStateStore, SwitchyardError, type StateStore, type StoreAvailability } from '@switchyard/core';
import { jsonTextOf } from '@switchyard/core/internal';
import type { Redis } from 'ioredis';
import { parseRedisStoreOptions, type RedisStoreOptions, type RedisStoreOptionsInput } from './options.js';
import { RedisPubSub } from './pubsub.js';
import { connect } from './connect.js';
import { reopenWhenEnded } from './reopen.js';
import { ACQUIRE_LEASE, COMPARE_AND_SET, INCREMENT, RELEASE_LEASE, runScript } from './scripts.js';

/** The cluster slot of a key (the algorithm ioredis itself uses, from its own dependency). */
const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;

/** Distinct counters remembered during one outage (budget windows, retry budgets); more are dropped. */
const MAX_MISSED_COUNTERS = 10_000;

/** A TTL as Redis takes it: `undefined` keeps the current expiry, `never` drops it, 0 expires now. */
type Expiry = undefined | 'never' | number;

export class RedisStateStore implements StateStore {
  readonly prefix: string;
  private readonly options: RedisStoreOptions;
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  /** A Cluster: multi-key reads go per slot. */
  private readonly cluster: boolean = false;
  /** Where the store's name shows in messages: the URL without its password. */
  private readonly where: string;
  /** Answers while Redis is unavailable; emptied when Redis is back, since Redis holds the shared truth. */
  private readonly local = new MemoryStateStore();
  private readonly firstConnection: Promise<void>;
  private outage = false;
  private skipUntil = 0;
  private lastError: unknown;
  private closed = false;
  private readonly pubsub: RedisPubSub;
  /** Counter increments answered locally during an outage, added to Redis when it is back. */
  private readonly missed = new Map<string, { by: number; expiresAt: number | undefined }>();
  private reconciling: Promise<void> = Promise.resolve();
  private readonly watchers = new Set<(change: StoreAvailability) => void>();

  constructor(input: RedisStoreOptionsInput) {
    this.options = parseRedisStoreOptions(input);
    this.prefix = this.options.prefix;
    if (this.options.client) {
      this.client = this.options.client;
      this.ownsClient = false;
      this.where = 'the given client';
      if (this.client.status === 'wait') this.client.connect().catch(() => undefined);
    } else {
      const connection = connect(this.options);
      this.client = connection.client;
      this.cluster = connection.cluster;
      this.where = connection.where;
      this.ownsClient = true;
      reopenWhenEnded(this.client, () => this.closed);
    }
    this.client.on('error', (error: unknown) => {
      this.lastError = error;
      this.degrade(error);
    });
    this.client.on('ready', () => this.recover());
    this.firstConnection = settled(this.client, this.options.connectTimeoutMs);
    this.pubsub = new RedisPubSub(this.client, this.prefix, (error) => this.degrade(error));
  }

  /**
   * Sends `message` to the other instances subscribed to `channel` (breaker transitions, health).
   * While Redis is down the message is dropped: each instance then acts on its own state.
   */
  async publish(channel: string, message: unknown): Promise<void> {
    await this.run('publish', async () => void (await this.client.publish(this.pubsub.channel(channel), this.pubsub.encode(message))), async () => undefined);
  }

  subscribe(channel: string, listener: (message: unknown) => void): () => void {
    return this.pubsub.subscribe(channel, listener);
  }

  /** True while Redis answers (the store is not serving from local memory). */
  get available(): boolean {
    return !this.outage && this.client.status === 'ready';
  }

  /** Waits for the connection; rejects with SWITCHYARD_ERR_STORE_UNAVAILABLE after connectTimeoutMs. */
  async ready(): Promise<void> {
    if (this.client.status !== 'ready') await settled(this.client, this.options.connectTimeoutMs, { untilError: false });
    if (this.client.status !== 'ready') {
      throw this.unavailable(this.lastError ?? new Error(`no connection within ${this.options.connectTimeoutMs} ms (status ${this.client.status})`));
    }
  }

  /**
   * Refuses (coded SWITCHYARD_ERR_REDIS_NOT_DURABLE, naming the setting) to keep durable records
   * in a Redis that persists nothing, or that refuses CONFIG unless `durableRedis: trust`. A
   * Redis that does not answer yet is not refused: the store serves locally until it does.
   */
  async assertDurable(): Promise<void> {
    if (this.options.durableRedis === 'trust') return;
    await this.ready().catch(() => undefined);
    if (!this.available) return;
    const advice = 'durable records (virtual keys, spend, stored Responses) would be lost with it; keep them in PostgreSQL (records: { use: "@switchyard/store-postgres" })';
    let appendonly: string | undefined;
    let save: string | undefined;
    try {
      appendonly = ((await this.withTimeout(this.client.config('GET', 'appendonly'), 'config')) as string[])[1];
      save = ((await this.withTimeout(this.client.config('GET', 'save'), 'config')) as string[])[1];
    } catch (error) {
      throw new SwitchyardError('config', `@switchyard/store-redis: Redis at ${this.where} refuses CONFIG GET (${(error as Error).message}), so whether it persists cannot be checked; ${advice}, or set durableRedis: trust if this Redis persists (a managed Redis)`, {
        code: REDIS_STORE_ERRORS.SWITCHYARD_ERR_REDIS_NOT_DURABLE,
        path: 'durableRedis',
        cause: error,
      });
    }
    if (appendonly === 'yes' || (save !== undefined && save.trim() !== '')) return;
    throw new SwitchyardError('config', `@switchyard/store-redis: Redis at ${this.where} persists nothing (appendonly ${appendonly ?? '?'}, save "${save ?? ''}"): a restart would empty it and ${advice}, or run Redis with appendonly yes`, {
      code: REDIS_STORE_ERRORS.SWITCHYARD_ERR_REDIS_NOT_DURABLE,
      path: 'appendonly',
    });
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    return this.run('get', async () => decode<T>(await this.client.get(this.prefix + key)), (local) => local.get<T>(key));
  }

  /**
   * The live keys under `prefix` (SCAN; on a Cluster, every primary), for a one-time copy to a
   * record store. Redis itself or an error: never this instance's local stand-in.
   */
  async entriesWithPrefix(prefix: string): ReturnType<NonNullable<StateStore['entriesWithPrefix']>> {
    const pattern = `${(this.prefix + prefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
    const nodes = this.cluster ? (this.client as unknown as { nodes(role: 'master'): Redis[] }).nodes('master') : [this.client];
    const names = new Set<string>();
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, found] = await this.withTimeout(node.scan(cursor, 'MATCH', pattern, 'COUNT', 500), 'scan');
        for (const name of found) names.add(name);
        cursor = next;
      } while (cursor !== '0');
    }
    const out: Awaited<ReturnType<NonNullable<StateStore['entriesWithPrefix']>>> = [];
    for (const name of names) {
      // A key of another type (not one this store wrote) has no value to copy.
      const [raw, left] = await this.withTimeout(Promise.all([this.client.get(name).catch(() => null), this.client.pttl(name)]), 'scan');
      const value = decode(raw);
      if (value === undefined) continue;
      out.push(left > 0 ? { key: name.slice(this.prefix.length), value, ttlMs: left } : { key: name.slice(this.prefix.length), value });
    }
    return out;
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return [];
    return this.run(
      'getMany',
      async () => (await this.mget(keys.map((key) => this.prefix + key))).map((raw) => decode<T>(raw)),
      (local) => local.getMany<T>(keys),
    );
  }

  /** One MGET; on a Cluster one per slot (a command may not span slots), in parallel, answers in order. */
  private async mget(names: string[]): Promise<(string | null)[]> {
    if (!this.cluster) return this.client.mget(names);
    const bySlot = new Map<number, number[]>();
    names.forEach((name, i) => {
      const slot = calculateSlot(name);
      const at = bySlot.get(slot);
      if (at) at.push(i);
      else bySlot.set(slot, [i]);
    });
    const out: (string | null)[] = new Array(names.length).fill(null);
    await Promise.all(
      [...bySlot.values()].map(async (indexes) => {
        const values = await this.client.mget(indexes.map((i) => names[i]));
        indexes.forEach((index, j) => (out[index] = values[j]));
      }),
    );
    return out;
  }

  async set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
    const expiry = expiryOf(ttlMs, 'set');
    // A JsonText (a stored Responses answer) as its own text: read back parsed.
    const raw = jsonTextOf(value);
    await this.run(
      'set',
      async () => {
        const name = this.prefix + key;
        if (raw === undefined || expiry === 0) await this.client.del(name);
        else if (typeof expiry === 'number') await this.client.set(name, raw, 'PX', expiry);
        else await this.client.set(name, raw);
      },
      (local) => local.set(key, value, ttlMs),
    );
  }

  async delete(key: string): Promise<void> {
    await this.run('delete', async () => void (await this.client.del(this.prefix + key)), (local) => local.delete(key));
  }

  async compareAndSet<T = unknown>(key: string, expected: T | undefined, next: T, ttlMs?: number): Promise<boolean> {
    const expiry = expiryOf(ttlMs, 'compareAndSet');
    const nextRaw = expiry === 0 ? undefined : JSON.stringify(next);
    const args = [JSON.stringify(expected) ?? '', nextRaw ?? '', typeof expiry === 'number' ? String(expiry) : ''];
    return this.run(
      'compareAndSet',
      async () => (await runScript(this.client, COMPARE_AND_SET, this.prefix + key, args)) === 1,
      (local) => local.compareAndSet(key, expected, next, ttlMs),
    );
  }

  async increment(key: string, by = 1, ttlMs?: number): Promise<number> {
    if (!Number.isFinite(by)) throw argumentError(`increment: by must be a finite number, got ${String(by)}`);
    const expiry = expiryOf(ttlMs, 'increment');
    const expiryArg = expiry === undefined ? '' : expiry === 'never' ? 'persist' : String(expiry);
    return this.run(
      'increment',
      async () => Number(await runScript(this.client, INCREMENT, this.prefix + key, [String(by), expiryArg])),
      (local) => {
        this.remember(key, by, ttlMs);
        return local.increment(key, by, ttlMs);
      },
    );
  }

  /** Counters are additive: what was counted locally during an outage is added back, not lost. */
  private remember(key: string, by: number, ttlMs: number | undefined): void {
    const seen = this.missed.get(key);
    if (!seen && this.missed.size >= MAX_MISSED_COUNTERS) return;
    const expiresAt = ttlMs === undefined || ttlMs === Number.POSITIVE_INFINITY ? seen?.expiresAt : Date.now() + ttlMs;
    this.missed.set(key, { by: (seen?.by ?? 0) + by, expiresAt });
  }

  private async reconcile(): Promise<void> {
    const pending = [...this.missed];
    this.missed.clear();
    for (let i = 0; i < pending.length; i++) {
      const [key, { by, expiresAt }] = pending[i];
      const left = expiresAt === undefined ? '' : String(Math.ceil(expiresAt - Date.now()));
      if (left !== '' && Number(left) <= 0) continue;
      try {
        await this.withTimeout(runScript(this.client, INCREMENT, this.prefix + key, [String(by), left]), 'reconcile');
      } catch (error) {
        // Redis went away again (a failover still settling): what is not added yet waits for the next recovery.
        for (const [k, missed] of pending.slice(i)) this.remember(k, missed.by, missed.expiresAt === undefined ? undefined : missed.expiresAt - Date.now());
        this.degrade(error);
        return;
      }
    }
  }

  async acquireLease(key: string, holder: string, ttlMs: number): Promise<boolean> {
    if (!Number.isFinite(ttlMs)) throw argumentError(`acquireLease: ttlMs must be a finite number, got ${String(ttlMs)}`);
    const ms = Math.max(1, Math.ceil(ttlMs));
    return this.run(
      'acquireLease',
      async () => (await runScript(this.client, ACQUIRE_LEASE, this.prefix + key, [JSON.stringify(holder), ms])) === 1,
      (local) => local.acquireLease(key, holder, ttlMs),
    );
  }

  async releaseLease(key: string, holder: string): Promise<void> {
    await this.run(
      'releaseLease',
      async () => void (await runScript(this.client, RELEASE_LEASE, this.prefix + key, [JSON.stringify(holder)])),
      (local) => local.releaseLease(key, holder),
    );
  }

  /** Quits the connection the store opened; a client passed in stays open (and usable). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pubsub.close();
    await this.local.close();
    if (!this.ownsClient) return;
    if (this.client.status !== 'ready') {
      this.client.disconnect();
      return;
    }
    const ended = new Promise<void>((resolve) => this.client.once('end', resolve));
    try {
      await this.withTimeout(this.client.quit(), 'quit');
    } catch {
      this.client.disconnect();
    }
    // QUIT is answered before the socket closes; wait for that, so nothing is sent after close().
    await this.withTimeout(ended, 'close').catch(() => undefined);
  }

  private async run<T>(operation: string, remote: () => Promise<T>, local: (store: MemoryStateStore) => Promise<T>): Promise<T> {
    let failure: SwitchyardError | undefined;
    if (await this.reachable()) {
      await this.reconciling;
      try {
        const result = await this.withTimeout(remote(), operation);
        if (this.outage) this.recover();
        return result;
      } catch (error) {
        // Slow, refused or rejected alike: leave Redis alone for a moment rather than make
        // every request wait out a timeout.
        this.skipUntil = Date.now() + this.options.recheckMs;
        this.degrade(error);
        failure = this.unavailable(error, operation);
      }
    }
    if (this.options.whenUnavailable === 'throw') throw failure ?? this.unavailable(this.whyDown(), operation);
    return local(this.local);
  }

  private async reachable(): Promise<boolean> {
    if (Date.now() < this.skipUntil) return false;
    if (this.client.status !== 'ready') await this.firstConnection;
    if (this.client.status === 'ready') return true;
    this.degrade(this.whyDown());
    return false;
  }

  private whyDown(): unknown {
    return this.lastError ?? new Error(`connection is ${this.client.status}`);
  }

  private withTimeout<T>(work: Promise<T>, operation: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${operation} got no answer within ${this.options.commandTimeoutMs} ms`)), this.options.commandTimeoutMs);
      timer.unref?.();
    });
    // The command may still fail after the timeout won; that is already reported.
    work.catch(() => undefined);
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  watchAvailability(listener: (change: StoreAvailability) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  private tell(change: StoreAvailability): void {
    for (const watcher of this.watchers) {
      try {
        watcher(change);
      } catch {
        // A failing watcher must not turn an outage into a crash.
      }
    }
  }

  /** The first failure of an outage is reported; the rest of it is quiet. */
  private degrade(cause: unknown): void {
    // A closed store has no outage: a command still running when its pipeline closed (`validate`) finds the connection ended.
    if (this.outage || this.closed) return;
    this.outage = true;
    const error = this.unavailable(cause);
    this.tell({ event: 'store:outage', where: this.where, error });
    try {
      // Watched (the gateway logs it): no process warning besides.
      if (this.options.onError) this.options.onError(error);
      else if (this.watchers.size === 0) warn(error);
    } catch {
      // A failing reporter must not turn an outage into a crash.
    }
  }

  private recover(): void {
    this.lastError = undefined;
    this.skipUntil = 0;
    if (!this.outage) return;
    this.outage = false;
    this.tell({ event: 'store:recovered', where: this.where });
    void this.local.close();
    this.reconciling = this.reconcile();
  }

  private unavailable(cause: unknown, operation?: string): SwitchyardError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const fallback = this.options.whenUnavailable === 'local' ? '; serving state from this instance until Redis answers' : '';
    return new SwitchyardError('plugin', `@switchyard/store-redis: Redis at ${this.where} is unavailable${operation ? ` for ${operation}` : ''} (${reason})${fallback}`, {
      code: 'SWITCHYARD_ERR_STORE_UNAVAILABLE',
      retryable: false,
      cause,
    });
  }
}

export function createRedisStore(options: RedisStoreOptionsInput): RedisStateStore {
  return new RedisStateStore(options);
}

function warn(error: SwitchyardError): void {
  process.emitWarning(error.message, { type: 'SwitchyardWarning', code: error.code });
}

function argumentError(message: string): SwitchyardError {
  return new SwitchyardError('plugin', `@switchyard/store-redis: ${message}`, { code: REDIS_STORE_ERRORS.SWITCHYARD_ERR_STORE_ARGUMENT });
}

function expiryOf(ttlMs: number | undefined, operation: string): Expiry {
  if (ttlMs === undefined) return undefined;
  if (Number.isNaN(ttlMs)) throw argumentError(`${operation}: ttlMs must be a number of milliseconds, got NaN`);
  if (ttlMs === Number.POSITIVE_INFINITY) return 'never';
  return Math.max(0, Math.ceil(ttlMs));
}

/** Values written by something other than this store may not be JSON: they read as strings. */
function decode<T>(raw: string | null): T | undefined {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return raw as T;
  }
}

/** Resolves once the client is ready, has given up, or the time is over; never rejects. */
function settled(client: Redis, timeoutMs: number, { untilError = true } = {}): Promise<void> {
  if (client.status === 'ready' || client.status === 'end') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done).off('end', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    timer.unref?.();
    client.once('ready', done).once('end', done);
    if (untilError) client.once('error', done);
  });
}
