import { afterEach, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPostgresRecords, MIGRATIONS, PostgresRecords } from '../src/index.js';
import { describeWithPostgres, dropSchema, PG_URL, sql, uniqueSchema } from './support/postgres.js';

const opened: PostgresRecords[] = [];
const schemas: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((r) => r.close()));
  await Promise.all(schemas.splice(0).map(dropSchema));
});

async function records(schema = uniqueSchema(), url = PG_URL, pruneEveryMs?: number, statementTimeoutMs?: number): Promise<PostgresRecords> {
  schemas.push(schema);
  const store = createPostgresRecords({ url, schema, retryMs: 50, connectTimeoutMs: 500, pruneEveryMs, statementTimeoutMs });
  store.onError = () => undefined;
  opened.push(store);
  await store.open();
  return store;
}

it('bad options are coded config errors that never show the password', () => {
  expect(() => createPostgresRecords({ url: 'redis://u:secret@h/0' })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_RECORDS_OPTIONS', path: 'url' }));
  expect(() => createPostgresRecords({ url: 'redis://u:secret@h/0' })).not.toThrow(/secret/);
  expect(() => createPostgresRecords({ url: PG_URL, schema: 'x; DROP TABLE y' })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_RECORDS_OPTIONS', path: 'schema' }));
});

it('PostgreSQL down: open resolves, writes reject with a coded 503, and it is marked unavailable', async () => {
  const store = await records(uniqueSchema(), 'postgres://postgres:pw@127.0.0.1:1/postgres');
  expect(store.available).toBe(false);
  await expect(store.put([{ key: 'k', value: 1, expiresAt: null }])).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE', status: 503 });
  await expect(store.get('k')).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE' });
  expect(store.where).not.toContain('pw');
});

describeWithPostgres('PostgresRecords on a real PostgreSQL', () => {
  it('runs its migrations once, even when two gateways start together', async () => {
    const schema = uniqueSchema();
    const [a, b] = await Promise.all([records(schema), records(schema)]);
    expect(a.available && b.available).toBe(true);
    const versions = await sql(`SELECT version FROM "${schema}".switchyard_migrations ORDER BY version`);
    expect(versions.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('keeps records: put, get, list, delete, expiry, and compare-and-set decided by the database', async () => {
    const store = await records();
    await store.put([
      { key: 'doc', value: { name: 'a', n: 1 }, expiresAt: null },
      { key: 'count', value: 5, expiresAt: null },
      { key: 'count', value: 7, expiresAt: null },
      { key: 'old', value: 'x', expiresAt: Date.now() - 1 },
    ]);
    expect(await store.get('doc')).toEqual({ key: 'doc', value: { name: 'a', n: 1 }, expiresAt: null });
    expect(await store.get('count')).toMatchObject({ value: 7 });
    expect(await store.get('old')).toBeUndefined();
    expect((await store.list()).map((r) => r.key).sort()).toEqual(['count', 'doc']);

    expect(await store.compareAndSet('doc', { name: 'a', n: 1 }, { name: 'a', n: 2 }, null)).toBe(true);
    expect(await store.compareAndSet('doc', { name: 'a', n: 1 }, { name: 'a', n: 3 }, null)).toBe(false);
    expect(await store.compareAndSet('new', undefined, { fresh: true }, Date.now() + 60_000)).toBe(true);
    expect(await store.compareAndSet('new', undefined, { fresh: false }, null)).toBe(false);
    // An expired record counts as absent.
    expect(await store.compareAndSet('old', undefined, 'again', null)).toBe(true);
    expect(await store.compareAndSet('doc', { name: 'a', n: 2 }, undefined, null)).toBe(true);
    expect(await store.get('doc')).toBeUndefined();
    await store.delete('new');
    expect((await store.list()).map((r) => r.key).sort()).toEqual(['count', 'old']);
  });

  it('deletes the rows that expired after a write, at most every pruneEveryMs: a day of stored answers does not stay on disk for ever', async () => {
    const schema = uniqueSchema();
    const store = await records(schema, PG_URL, 50);
    const soon = Date.now() + 100;
    await store.put([{ key: 'answer:1', value: 'a', expiresAt: soon }, { key: 'team', value: 'kept', expiresAt: null }]);
    const keys = async () => (await sql(`SELECT key FROM "${schema}".switchyard_records ORDER BY key`)).rows.map((row: { key: string }) => row.key);
    expect(await keys()).toEqual(['answer:1', 'team']);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(soon + 50), { timeout: 2_000, interval: 20 });
    // Read as absent at once; gone from the table after the next write.
    expect(await store.get('answer:1')).toBeUndefined();
    await store.put([{ key: 'answer:2', value: 'b', expiresAt: Date.now() + 60_000 }]);
    await vi.waitFor(async () => expect(await keys()).toEqual(['answer:2', 'team']), { timeout: 2_000, interval: 20 });
  });

  it('a backlog of expired rows is deleted in batches at open, around rows another transaction holds, and never keeps the store down', async () => {
    const schema = uniqueSchema();
    // The schema, then 2,500 expired rows and one kept, as a gateway stopped for days leaves them.
    await (await records(schema)).close();
    const past = Date.now() - 60_000;
    await sql(`INSERT INTO "${schema}".switchyard_records (key, value, expires_at) SELECT 'answer:' || i, to_jsonb(repeat('x', 200)), $1::bigint + i FROM generate_series(1, 2500) AS i`, [past]);
    await sql(`INSERT INTO "${schema}".switchyard_records (key, value, expires_at) VALUES ('team', '"kept"', NULL)`);
    // Another transaction holds one expired row (a write to it, another gateway): one DELETE of them all waited for it past the statement timeout.
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT key FROM "${schema}".switchyard_records WHERE key = 'answer:1200' FOR UPDATE`);
      const store = await records(schema, PG_URL, undefined, 500);
      expect(store.available).toBe(true);
      await store.put([{ key: 'written', value: 1, expiresAt: null }]);
      const left = async () => (await sql(`SELECT key FROM "${schema}".switchyard_records ORDER BY key`)).rows.map((row: { key: string }) => row.key);
      await vi.waitFor(async () => expect(await left()).toEqual(['answer:1200', 'team', 'written']), { timeout: 5_000, interval: 50 });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it('concurrent compare-and-set from two pools: exactly one wins each round', async () => {
    const schema = uniqueSchema();
    const [a, b] = await Promise.all([records(schema), records(schema)]);
    await a.put([{ key: 'n', value: 0, expiresAt: null }]);
    const bump = async (store: PostgresRecords) => {
      for (let done = 0; done < 20; ) {
        const current = (await store.get('n'))!.value as number;
        if (await store.compareAndSet('n', current, current + 1, null)) done++;
      }
    };
    await Promise.all([bump(a), bump(b)]);
    expect((await a.get('n'))!.value).toBe(40);
  });
});
