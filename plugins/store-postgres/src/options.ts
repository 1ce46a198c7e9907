/** Options of the PostgreSQL record store, validated when it is created. */
import { POSTGRES_STORE_ERRORS } from './error-codes.js';
import { SwitchyardError } from '@switchyard/core';
import { z } from 'zod';

export const postgresRecordsOptionsSchema = z
  .object({
    /** `postgres://user:password@host:port/database` (`?sslmode=require` for TLS). */
    url: z.string().min(1),
    /** The schema that holds the tables (created by the migrations when missing). */
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
      .default('public'),
    /** Connections in the pool of this gateway. */
    poolSize: z.number().int().min(1).max(100).default(5),
    /** How long a new connection may take. */
    connectTimeoutMs: z.number().int().min(1).max(60_000).default(2_000),
    /** A statement that has not answered by then fails (the write gets a 503; reads fall back to the hot store). */
    statementTimeoutMs: z.number().int().min(1).max(60_000).default(2_000),
    /** While PostgreSQL is down: how often the migrations and the connection are tried again. */
    retryMs: z.number().int().min(10).max(600_000).default(5_000),
    /** How often, at most, a write is followed by deleting the rows that expired (stored Responses after their TTL). */
    pruneEveryMs: z.number().int().min(10).max(86_400_000).default(600_000),
  })
  .strict();

export type PostgresRecordsOptions = z.output<typeof postgresRecordsOptionsSchema>;
export type PostgresRecordsOptionsInput = z.input<typeof postgresRecordsOptionsSchema>;

export function parsePostgresRecordsOptions(input: PostgresRecordsOptionsInput): PostgresRecordsOptions {
  const result = postgresRecordsOptionsSchema.safeParse(input ?? {});
  if (!result.success) {
    const first = result.error.issues[0];
    const field = first?.path.length ? first.path.join('.') : '(options)';
    const detail = result.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ');
    throw new SwitchyardError('config', `@switchyard/store-postgres: invalid option ${field}: ${detail}`, { code: POSTGRES_STORE_ERRORS.SWITCHYARD_ERR_RECORDS_OPTIONS, path: field });
  }
  let url: URL | undefined;
  try {
    url = new URL(result.data.url);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || !url.hostname) {
    throw new SwitchyardError('config', `@switchyard/store-postgres: url ${redactUrl(result.data.url)} is not a postgres://user:password@host:port/database URL`, { code: POSTGRES_STORE_ERRORS.SWITCHYARD_ERR_RECORDS_OPTIONS, path: 'url' });
  }
  return result.data;
}

/** A connection URL fit for messages and logs: its password is never shown. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i, (_all, scheme: string, auth: string) => {
    const colon = auth.indexOf(':');
    return `${scheme}${colon === -1 ? '***' : `${auth.slice(0, colon)}:***`}@`;
  });
}
