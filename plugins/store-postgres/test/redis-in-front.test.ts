/**
 * Several gateways: Redis as the shared hot state, PostgreSQL as the system of record
 * (RecordKeepingStore). Two stores stand for two gateways on one Redis of the test's own
 * (never the shared 6390: it is flushed and restarted here, with no persistence).
 */
import { declareDurableKeys } from '@switchyard/core';
import { RecordKeepingStore } from '@switchyard/core/config';
import { createRedisStore, type RedisStateStore } from '@switchyard/store-redis';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { hasRedisServer, OwnRedisServer } from '../../store-redis/test/support/redis.js';
import { createPostgresRecords } from '../src/index.js';
import { describeWithPostgres, dropSchema, PG_URL, sql, uniqueSchema } from './support/postgres.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const HOUR = 3_600_000;

async function gateway(redisUrl: string, schema: string, pgUrl = PG_URL): Promise<RecordKeepingStore> {
  // A test Redis without persistence: opted out of the persistence check, PostgreSQL keeps the records.
  const hot = createRedisStore({ url: redisUrl, prefix: 'gw:', recheckMs: 50, commandTimeoutMs: 300, onError: () => undefined, durableRedis: 'trust' });
  const records = createPostgresRecords({ url: pgUrl, schema, retryMs: 50, connectTimeoutMs: 500 });
  records.onError = () => undefined;
  const store = new RecordKeepingStore(hot, records, { shared: true, flushMs: 100 });
  await hot.ready();
  await store.open();
  declareDurableKeys(store, 'tenants', { records: ['t:key:', 't:keys'], tallies: ['t:spend:'] });
  cleanups.push(() => store.close());
  return store;
}

/**
 * A TCP relay to the real PostgreSQL that can go down: down, it drops every connection it carries
 * and refuses new ones (what a PostgreSQL stopped or unreachable mid-traffic looks like).
 */
async function cuttablePostgres(): Promise<{ url: string; down(): void; up(): void }> {
  const target = new URL(PG_URL);
  const sockets = new Set<net.Socket>();
  let isDown = false;
  const server = net.createServer((client) => {
    if (isDown) return void client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(s);
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))));
  const url = new URL(PG_URL);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    down() {
      isDown = true;
      for (const s of sockets) s.destroy();
    },
    up: () => void (isDown = false),
  };
}

async function setUp(pgUrl = PG_URL): Promise<{ redis: OwnRedisServer; schema: string; a: RecordKeepingStore; b: RecordKeepingStore; admin: Redis }> {
  const redis = await OwnRedisServer.start();
  cleanups.push(() => redis.close());
  const schema = uniqueSchema();
  cleanups.push(() => dropSchema(schema));
  const a = await gateway(redis.url, schema, pgUrl);
  const b = await gateway(redis.url, schema, pgUrl);
  const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  admin.on('error', () => undefined);
  cleanups.push(async () => admin.disconnect());
  return { redis, schema, a, b, admin };
}

const booked = async (schema: string, key: string) => (await sql(`SELECT value FROM "${schema}".switchyard_records WHERE key = $1`, [key])).rows[0]?.value;

describeWithPostgres('Redis in front of PostgreSQL', () => {
  it.skipIf(!hasRedisServer())('a flushed Redis loses no key, and its spend comes back short by at most what the last interval had not checkpointed', { timeout: 30_000 }, async () => {
    const { schema, a, b, admin } = await setUp();
    await a.set('t:keys', ['k1']);
    await a.set('t:key:k1', { name: 'one' });
    // Written through: in PostgreSQL before the write resolved.
    expect(await booked(schema, 't:key:k1')).toEqual({ name: 'one' });
    for (let i = 0; i < 40; i++) await (i % 2 ? a : b).increment('t:spend:k1', 100, HOUR);
    expect([await a.get('t:spend:k1'), await b.get('t:spend:k1')]).toEqual([4_000, 4_000]);
    await expect.poll(() => booked(schema, 't:spend:k1'), { timeout: 5_000, interval: 20 }).toBe(4_000);

    // Spend that no checkpoint has seen yet, then Redis loses everything.
    for (let i = 0; i < 3; i++) await a.increment('t:spend:k1', 100, HOUR);
    await admin.flushall();
    // Keys are read through from PostgreSQL at once, by either gateway.
    expect(await b.get('t:key:k1')).toEqual({ name: 'one' });
    expect(await a.getMany(['t:keys', 't:key:k1'])).toEqual([['k1'], { name: 'one' }]);
    // Spend counted after the flush is kept, and the books are added back within one interval.
    await b.increment('t:spend:k1', 100, HOUR);
    await expect.poll(() => admin.exists('gw:switchyard:records:restored'), { timeout: 5_000, interval: 20 }).toBe(1);
    const afterFlush = (await a.get<number>('t:spend:k1'))!;
    const truth = 4_000 + 300 + 100;
    // The under-count: at most the 3 increments no checkpoint had seen (0 when one ran before the flush).
    expect(truth - afterFlush).toBeGreaterThanOrEqual(0);
    expect(truth - afterFlush).toBeLessThanOrEqual(300);
    expect(await b.get('t:spend:k1')).toBe(afterFlush);
    // The books never went backwards: PostgreSQL still has at least what it had.
    await expect.poll(async () => (await booked(schema, 't:spend:k1')) as number, { timeout: 5_000, interval: 20 }).toBe(afterFlush);
  });

  it.skipIf(!hasRedisServer())('a Redis restarted without persistence: keys and spend come back, the two gateways agree exactly', { timeout: 30_000 }, async () => {
    const { redis, schema, a, b, admin } = await setUp();
    await a.set('t:key:k2', { name: 'two' });
    for (let i = 0; i < 10; i++) await b.increment('t:spend:k2', 250, HOUR);
    await expect.poll(() => booked(schema, 't:spend:k2'), { timeout: 5_000, interval: 20 }).toBe(2_500);
    await redis.stop();
    await redis.start();
    // Restored once (by whichever gateway took the lease), in Redis itself, not only read through.
    await expect.poll(() => admin.get('gw:t:spend:k2'), { timeout: 10_000, interval: 50 }).toBe('2500');
    await expect.poll(() => a.available && b.available, { timeout: 10_000, interval: 50 }).toBe(true);
    expect([await a.get('t:spend:k2'), await b.get('t:spend:k2')]).toEqual([2_500, 2_500]);
    expect(await b.get('t:key:k2')).toEqual({ name: 'two' });
    await a.increment('t:spend:k2', 1, HOUR);
    expect(await b.get('t:spend:k2')).toBe(2_501);
    expect(JSON.parse((await admin.get('gw:switchyard:records:restored'))!)).toMatchObject({ records: 2 });
  });

  it.skipIf(!hasRedisServer())('PostgreSQL down at start: keys are served from Redis, writes of records get a coded 503', { timeout: 30_000 }, async () => {
    const { redis, schema, a } = await setUp();
    await a.set('t:key:k3', { name: 'three' });
    const cut = await gateway(redis.url, schema, 'postgres://postgres@127.0.0.1:1/postgres');
    expect(await cut.get('t:key:k3')).toEqual({ name: 'three' });
    await expect(cut.set('t:key:k4', { name: 'four' })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE', status: 503 });
    expect(await a.get('t:key:k4')).toBeUndefined();
    // Spend still counts in Redis meanwhile (it waits for its checkpoint).
    expect(await cut.increment('t:spend:k3', 5, HOUR)).toBe(5);
  });

  it.skipIf(!hasRedisServer())('PostgreSQL going down mid-traffic: no spend lost, keys still read, record writes a coded 503 meanwhile; one outage, one recovery; the books catch up', { timeout: 60_000 }, async () => {
    const pg = await cuttablePostgres();
    const { schema, a, b } = await setUp(pg.url);
    const events: string[] = [];
    a.watchAvailability((change) => events.push(change.event));
    await a.set('t:key:k5', { name: 'five' });
    // Traffic on both gateways: spend counted and the key read, request after request, until told to stop.
    let running = true;
    let counted = 0;
    const failures: unknown[] = [];
    const traffic = [a, b].map(async (gw) => {
      while (running) {
        try {
          await gw.increment('t:spend:k5', 10, HOUR);
          counted++;
          expect(await gw.get('t:key:k5')).toEqual({ name: 'five' });
        } catch (error) {
          failures.push(error);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    await expect.poll(() => counted, { timeout: 20_000, interval: 10 }).toBeGreaterThan(20);
    pg.down();
    // A record write meanwhile: refused, coded, and nothing half-written.
    await expect(a.set('t:key:k6', { name: 'six' })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE', status: 503 });
    expect(await b.get('t:key:k6')).toBeUndefined();
    const duringOutage = counted;
    await expect.poll(() => counted, { timeout: 20_000, interval: 10 }).toBeGreaterThan(duringOutage + 20);
    pg.up();
    // Writes go through again once PostgreSQL answers.
    await expect.poll(() => a.set('t:key:k6', { name: 'six' }).then(() => 'written', (e: { code?: string }) => e.code), { timeout: 20_000, interval: 100 }).toBe('written');
    running = false;
    await Promise.all(traffic);
    expect(failures).toEqual([]);
    // Every increment is in Redis, and the checkpoints bring PostgreSQL's books to the same count.
    expect(await a.get('t:spend:k5')).toBe(counted * 10);
    await expect.poll(() => booked(schema, 't:spend:k5'), { timeout: 20_000, interval: 50 }).toBe(counted * 10);
    expect(await booked(schema, 't:key:k6')).toEqual({ name: 'six' });
    expect(events).toEqual(['store:outage', 'store:recovered']);
  });

  it.skipIf(!hasRedisServer())('the first switch from Redis alone to PostgreSQL copies the keys, teams and spend Redis held, once, never over a newer record; a flush then loses none', { timeout: 60_000 }, async () => {
    const redis = await OwnRedisServer.start();
    cleanups.push(() => redis.close());
    const schema = uniqueSchema();
    cleanups.push(() => dropSchema(schema));
    // Before: Redis alone held the durable records (an operator running it with persistence; this test server has none).
    const alone: RedisStateStore = createRedisStore({ url: redis.url, prefix: 'gw:', onError: () => undefined, durableRedis: 'trust' });
    await alone.ready();
    await alone.set('t:keys', ['k7', 'k8']);
    await alone.set('t:key:k7', { name: 'seven', team: 'red' });
    await alone.set('t:key:k8', { name: 'eight' }, HOUR);
    await alone.increment('t:spend:k7', 700, HOUR);
    await alone.set('soft:breaker', 'open');
    await alone.close();
    // A gateway already switched wrote k7 anew in PostgreSQL.
    const first = createPostgresRecords({ url: PG_URL, schema });
    await first.open();
    await first.put([{ key: 't:key:k7', value: { name: 'seven', team: 'blue' }, expiresAt: null }]);
    await first.close();
    // After: PostgreSQL behind the same Redis, on two gateways.
    const a = await gateway(redis.url, schema);
    const b = await gateway(redis.url, schema);
    await expect.poll(() => booked(schema, 'switchyard:records:seeded'), { timeout: 20_000, interval: 50 }).toMatchObject({ records: 3 });
    expect(await booked(schema, 't:keys')).toEqual(['k7', 'k8']);
    expect(await booked(schema, 't:key:k7')).toEqual({ name: 'seven', team: 'blue' });
    expect(await booked(schema, 't:key:k8')).toEqual({ name: 'eight' });
    expect(await booked(schema, 't:spend:k7')).toBe(700);
    expect(await booked(schema, 'soft:breaker')).toBeUndefined();
    // The time to live came along.
    const { rows } = await sql(`SELECT expires_at FROM "${schema}".switchyard_records WHERE key = 't:key:k8'`);
    expect(Number(rows[0].expires_at) - Date.now()).toBeGreaterThan(HOUR - 60_000);
    expect(a.seeded + b.seeded).toBe(3);
    // Redis loses everything: every key and the spend come back from PostgreSQL.
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
    cleanups.push(async () => admin.disconnect());
    await admin.flushall();
    // (Polled: a read-through that cannot get a PostgreSQL connection in time on a loaded machine reads as absent.)
    await expect.poll(() => b.getMany(['t:keys', 't:key:k7', 't:key:k8']), { timeout: 20_000, interval: 50 }).toEqual([['k7', 'k8'], { name: 'seven', team: 'blue' }, { name: 'eight' }]);
    await expect.poll(() => a.get('t:spend:k7'), { timeout: 20_000, interval: 50 }).toBe(700);
  });
});
