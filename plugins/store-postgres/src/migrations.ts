/**
 * The schema, as numbered migrations run at start: each in its own transaction, once, under an
 * advisory lock so gateways starting together never run one twice. A migration is never edited
 * once shipped; a change is a new one.
 */
import type { Pool } from 'pg';

export interface Migration {
  version: number;
  statements: (schema: string) => string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (s) => [
      `CREATE TABLE ${s}.switchyard_records (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        expires_at bigint,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX switchyard_records_expiry ON ${s}.switchyard_records (expires_at) WHERE expires_at IS NOT NULL`,
    ],
  },
];

/** Any number: the lock only has to be the same for every gateway. */
const MIGRATION_LOCK = 7_304_040;

/** Brings the schema up to date; returns the versions it applied. */
export async function migrate(pool: Pool, schema: string): Promise<number[]> {
  const s = `"${schema}"`;
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.switchyard_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ version: number }>(`SELECT version FROM ${s}.switchyard_migrations`)).rows.map((r) => r.version));
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        for (const statement of migration.statements(s)) await client.query(statement);
        await client.query(`INSERT INTO ${s}.switchyard_migrations (version) VALUES ($1)`, [migration.version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(migration.version);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}
