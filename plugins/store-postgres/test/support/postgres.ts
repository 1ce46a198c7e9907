/**
 * The real PostgreSQL the tests run against (.ci/postgres.sh starts one on 127.0.0.1:55432).
 * Without one, these tests are skipped locally and fail under CI, where a skip would hide them.
 * Each test works in a schema of its own, dropped afterwards.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

export const PG_URL = process.env.SWITCHYARD_PG_URL ?? 'postgres://postgres@127.0.0.1:55432/postgres';

function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 5432) });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => finish(true));
  });
}

const reachable = await answers(PG_URL);

/** describe() for tests that need the real PostgreSQL. */
export function describeWithPostgres(name: string, body: () => void): void {
  if (!reachable && process.env.CI) {
    describe(name, () => {
      it('needs a PostgreSQL server', () => {
        throw new Error(`no PostgreSQL answers at ${PG_URL}; CI runs .ci/postgres.sh to start one (or set SWITCHYARD_PG_URL)`);
      });
    });
    return;
  }
  describe.skipIf(!reachable)(name, body);
}

/** A schema name no other test shares. */
export function uniqueSchema(): string {
  return `switchyard_test_${randomBytes(6).toString('hex')}`;
}

/** Runs one statement on a connection of its own (looking behind the store, cleaning up). */
export async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
