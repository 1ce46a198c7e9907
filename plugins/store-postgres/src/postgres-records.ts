/**
 * Durable records in PostgreSQL: the system of record of several gateways, with Redis (the
 * StateStore) as the hot state in front of it (core's RecordKeepingStore does the layering).
 * One table, key → jsonb value and an expiry in epoch ms; every statement takes parameters.
 *
 * PostgreSQL down never stops a gateway: at start the migrations are tried again every
 * `retryMs` while the gateway serves from Redis; a write meanwhile rejects (a 503 to the admin
 * API), reads fall back to the hot store.
 */
import { SwitchyardError, type DurableRecord, type DurableRecordStore, type StoreAvailability } from '@switchyard/core';
import { jsonTextOf } from '@switchyard/core/internal';
import pg from 'pg';
import { migrate } from './migrations.js';
import { parsePostgresRecordsOptions, redactUrl, type PostgresRecordsOptions, type PostgresRecordsOptionsInput } from './options.js';

/** Expired rows one statement deletes: a backlog (a restart after days of stored answers) goes in short statements, never one past the statement timeout. */
const PRUNE_BATCH = 1_000;

interface Row {
  key: string;
  value: unknown;
  expires_at: string | null;
}

export class PostgresRecords implements DurableRecordStore {
  readonly where: string;
  private readonly options: PostgresRecordsOptions;
  private readonly pool: pg.Pool;
  private readonly table: string;
  private readonly deleteExpired: string;
  private migrated: Promise<void> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private state: 'unknown' | 'up' | 'down' = 'unknown';
  private closed = false;
  /** When the next write deletes the expired rows (epoch ms). */
  private pruneAt = 0;
  /** A prune under way (one at a time). */
  private pruning = false;
  private readonly watchers = new Set<(change: StoreAvailability) => void>();
  /** Told once per outage; defaults to a process warning. */
  onError: (error: SwitchyardError) => void = (error) => process.emitWarning(error.message, { type: 'SwitchyardWarning', code: error.code });

  constructor(input: PostgresRecordsOptionsInput) {
    this.options = parsePostgresRecordsOptions(input);
    this.where = `PostgreSQL at ${redactUrl(this.options.url)}`;
    this.table = `"${this.options.schema}".switchyard_records`;
    // Oldest first along the expiry index; rows another statement holds (a write, another gateway's prune) are left to the next batch or prune.
    this.deleteExpired = `DELETE FROM ${this.table} WHERE key IN (SELECT key FROM ${this.table} WHERE expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;
    this.pool = new pg.Pool({
      connectionString: this.options.url,
      max: this.options.poolSize,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      statement_timeout: this.options.statementTimeoutMs,
      query_timeout: this.options.statementTimeoutMs,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection that drops (a restart of PostgreSQL) must not crash the process.
    this.pool.on('error', (error) => this.failed(error));
  }

  get available(): boolean {
    return this.state === 'up';
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

  private up(): void {
    if (this.state === 'down') this.tell({ event: 'store:recovered', where: this.where });
    this.state = 'up';
  }

  /** Runs the migrations; with PostgreSQL down it resolves anyway and keeps trying in the background. */
  async open(): Promise<void> {
    await this.ensureMigrated().catch(() => this.scheduleRetry());
  }

  private ensureMigrated(): Promise<void> {
    this.migrated ??= migrate(this.pool, this.options.schema).then(
      () => {
        this.up();
        // After the store is up, not before: a backlog of expired rows must not keep it down.
        this.prune();
      },
      (error: unknown) => {
        this.migrated = undefined;
        this.failed(error);
        throw error;
      },
    );
    return this.migrated;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.ensureMigrated().catch(() => this.scheduleRetry());
    }, this.options.retryMs);
    this.retry.unref?.();
  }

  /** The first failure of an outage is told; the rest of it is quiet. */
  private failed(error: unknown): void {
    if (this.state === 'down' || this.closed) return;
    this.state = 'down';
    const reported = this.unavailable(error);
    this.tell({ event: 'store:outage', where: this.where, error: reported });
    try {
      if (this.watchers.size === 0) this.onError(reported);
    } catch {
      // A failing reporter must not turn an outage into a crash.
    }
  }

  private unavailable(cause: unknown): SwitchyardError {
    return new SwitchyardError('overloaded', `@switchyard/store-postgres: ${this.where} is unavailable (${(cause as Error)?.message ?? String(cause)}); admin writes are refused until it answers`, {
      code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE',
      status: 503,
      retryable: false,
      cause,
    });
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.closed) throw this.unavailable(new Error('the record store is closed'));
    try {
      await this.ensureMigrated();
      const result = await this.pool.query<R>(text, values);
      this.up();
      return result;
    } catch (error) {
      this.failed(error);
      this.scheduleRetry();
      throw this.unavailable(error);
    }
  }

  async get(key: string): Promise<DurableRecord | undefined> {
    const { rows } = await this.query<Row>(`SELECT key, value, expires_at FROM ${this.table} WHERE key = $1 AND (expires_at IS NULL OR expires_at > $2)`, [key, Date.now()]);
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async put(records: readonly DurableRecord[]): Promise<void> {
    if (records.length === 0) return;
    // One row per key (the last write wins): ON CONFLICT cannot touch a row twice in one statement.
    const latest = new Map<string, DurableRecord>();
    for (const r of records) latest.set(r.key, r);
    const rows = [...latest.values()];
    await this.query(
      `INSERT INTO ${this.table} (key, value, expires_at, updated_at)
       SELECT k, v, x, now() FROM unnest($1::text[], $2::jsonb[], $3::bigint[]) AS input(k, v, x)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, updated_at = now()`,
      [rows.map((r) => r.key), rows.map((r) => jsonTextOf(r.value)), rows.map((r) => r.expiresAt)],
    );
    this.pruneIfDue();
  }

  /**
   * Expired rows read as absent, but stay on disk until deleted: at open, and after a write every
   * `pruneEveryMs` (several gateways may each do it: each deletes rows the others do not hold).
   * Without this, a day's stored Responses were kept for as long as the database ran.
   */
  private pruneIfDue(): void {
    if (Date.now() >= this.pruneAt) this.prune();
  }

  /**
   * Deletes the expired rows `PRUNE_BATCH` at a time, in the background. A failure (a statement
   * timeout, PostgreSQL gone) ends this prune quietly: the statements the gateway waits on
   * report outages, and the next prune starts where this one stopped.
   */
  private prune(): void {
    if (this.pruning || this.closed) return;
    const now = Date.now();
    this.pruneAt = now + this.options.pruneEveryMs;
    this.pruning = true;
    void (async () => {
      try {
        while (!this.closed && (await this.pool.query(this.deleteExpired, [now, PRUNE_BATCH])).rowCount === PRUNE_BATCH);
      } catch {
        // Told by the next statement that fails, if PostgreSQL is really gone.
      } finally {
        this.pruning = false;
      }
    })();
  }

  async delete(key: string): Promise<void> {
    await this.query(`DELETE FROM ${this.table} WHERE key = $1`, [key]);
  }

  async compareAndSet<T>(key: string, expected: T | undefined, next: T | undefined, expiresAt: number | null): Promise<boolean> {
    const now = Date.now();
    if (expected === undefined && next === undefined) return (await this.get(key)) === undefined;
    if (expected === undefined) {
      // Absent, or present but expired: both count as absent.
      const { rowCount } = await this.query(
        `INSERT INTO ${this.table} (key, value, expires_at) VALUES ($1, $2::jsonb, $3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, updated_at = now()
         WHERE ${this.table}.expires_at IS NOT NULL AND ${this.table}.expires_at <= $4`,
        [key, JSON.stringify(next), expiresAt, now],
      );
      return rowCount === 1;
    }
    const live = `key = $1 AND value = $2::jsonb AND (expires_at IS NULL OR expires_at > $3)`;
    if (next === undefined) return (await this.query(`DELETE FROM ${this.table} WHERE ${live}`, [key, JSON.stringify(expected), now])).rowCount === 1;
    const { rowCount } = await this.query(`UPDATE ${this.table} SET value = $4::jsonb, expires_at = $5, updated_at = now() WHERE ${live}`, [key, JSON.stringify(expected), now, JSON.stringify(next), expiresAt]);
    return rowCount === 1;
  }

  async list(): Promise<DurableRecord[]> {
    const { rows } = await this.query<Row>(`SELECT key, value, expires_at FROM ${this.table} WHERE expires_at IS NULL OR expires_at > $1`, [Date.now()]);
    return rows.map(recordOf);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.pool.end();
  }
}

function recordOf(row: Row): DurableRecord {
  return { key: row.key, value: row.value, expiresAt: row.expires_at === null ? null : Number(row.expires_at) };
}

/** The `records.use` factory: `records: { use: "@switchyard/store-postgres", options: { url } }`. */
export function createPostgresRecords(options: PostgresRecordsOptionsInput): PostgresRecords {
  return new PostgresRecords(options);
}
