/**
 * Durable records on a single gateway (the embedded journal beside the config, on by default):
 * a real `switchyard serve` process is killed with SIGKILL, no shutdown code runs, and the next
 * start still knows the key the admin API created, its budget, and the spend it had.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.js';
import { capture, closeVendors, configFile, removeTempDirs, vendorSaying } from './support.js';
import { redisAnswers } from '../../../plugins/store-redis/test/support/redis.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
const BIN = path.resolve(here, '../src/bin.ts');
const ADMIN_KEY = 'admin-key-records-kill-0123456789';
const redisUp = await redisAnswers();

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await closeVendors();
  await removeTempDirs();
});

/** $1000 per million tokens: one loopback answer (3 + 2 tokens) costs $0.005. */
const config = (vendorUrl: string) => `
server: { adminKeys: ["\${ADMIN_KEY}"] }
endpoints: [{ name: up, provider: openai, baseUrl: "${vendorUrl}", apiKey: vendor-key }]
models: { chat: [{ endpoint: up, model: m, price: { input: 1000, output: 1000 } }] }
plugins:
  - use: "@switchyard/plugin-quota"
    options: { ledger: {} }
  - "@switchyard/plugin-tenants"
`;

async function serve(file: string): Promise<{ child: ChildProcess; origin: string; out: () => string }> {
  const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', 'tsx', BIN, 'serve', '--config', file, '--port', '0', '--no-watch'], {
    cwd: ROOT,
    env: { ...process.env, ADMIN_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stdout += d));
  await expect.poll(() => stdout, { timeout: 20_000, interval: 50 }).toMatch(/"event":"listening","url":"(http[^"]+)"/);
  const url = /"event":"listening","url":"(http[^"]+)"/.exec(stdout)![1];
  return { child, origin: url.replace(/\/v1$/, ''), out: () => stdout };
}

async function call(origin: string, method: string, route: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(origin + route, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

const chat = (origin: string, secret: string) => call(origin, 'POST', '/v1/chat/completions', secret, { model: 'chat', messages: [{ role: 'user', content: 'hi' }] });

/** The journal's last value for a key (what a restart would read), undefined when it has none. */
async function journaled(file: string, key: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch(() => '');
  let value: unknown;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const row = JSON.parse(line) as [string, unknown?];
    if (row[0] === key) value = row.length === 1 ? undefined : row[1];
  }
  return value;
}

describe('durable records of a single gateway', () => {
  it('keys, budgets and spend survive kill -9 of the gateway process', { timeout: 120_000 }, async () => {
    const vendor = await vendorSaying('hello');
    const file = await configFile(config(vendor.url));
    const journal = path.join(path.dirname(file), 'switchyard-records.journal');

    const first = await serve(file);
    expect(first.out()).toContain('"event":"records_opened"');
    const created = await call(first.origin, 'POST', '/switchyard/keys', ADMIN_KEY, { name: 'survivor', team: 'a', budget: { day: { limitUsd: 10 } } });
    expect(created.status).toBe(201);
    const { id } = created.json.key;
    const secret: string = created.json.secret;
    // An admin write is on disk before its 2xx.
    expect(await journaled(journal, `switchyard:tenants:key:${id}`)).toMatchObject({ id, name: 'survivor' });
    for (let i = 0; i < 3; i++) expect((await chat(first.origin, secret)).status).toBe(200);
    const day = new Date().toISOString().slice(0, 10);
    // Spend is checkpointed within a second: wait for it, then kill without any shutdown.
    await expect.poll(() => journaled(journal, `switchyard:tenants:spend:key:${id}:${day}`), { timeout: 5_000, interval: 50 }).toBe(15_000);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = await serve(file);
    expect(second.out()).toMatch(/"event":"records_opened".*"restored":[1-9]/);
    expect((await chat(second.origin, secret)).status).toBe(200);
    const usage = await call(second.origin, 'GET', `/switchyard/keys/${id}/usage`, ADMIN_KEY);
    expect(usage.status).toBe(200);
    expect(usage.json.key).toMatchObject({ name: 'survivor', team: 'a', budget: { day: { limitUsd: 10 } } });
    expect(usage.json.spend.day.spentUsd).toBeCloseTo(0.02, 9);
    const keys = await call(second.origin, 'GET', '/switchyard/keys', ADMIN_KEY);
    expect(keys.json.keys.map((k: { id: string }) => k.id)).toEqual([id]);
  });

  it('a records file that cannot be written is a coded start error naming it', { timeout: 30_000 }, async () => {
    const vendor = await vendorSaying('hello');
    const file = await configFile(`${config(vendor.url)}records: { file: /sys/switchyard-records.journal }\n`);
    const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', 'tsx', BIN, 'serve', '--config', file, '--port', '0', '--no-watch'], { cwd: ROOT, env: { ...process.env, ADMIN_KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(output).toContain('SWITCHYARD_ERR_RECORDS_LOCATION');
    expect(output).toContain('/sys/switchyard-records.journal');
  });

  it.skipIf(!redisUp && !process.env.CI)('a shared Redis that persists nothing is refused at start, naming the setting, unless the config opts out', { timeout: 30_000 }, async () => {
    const vendor = await vendorSaying('hello');
    // The shared test Redis on 6390 runs with --save '' --appendonly no.
    const store = (extra: string) => `store: { use: "@switchyard/store-redis", options: { url: "redis://127.0.0.1:6390", prefix: "records-check-${process.pid}:"${extra} } }\n`;
    const refused = await configFile(config(vendor.url) + store(''));
    const started = startServer({ file: refused, io: capture({ ADMIN_KEY }).io, watch: false, overrides: { port: 0 }, signals: { on: () => process, off: () => process } });
    await expect(started).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_REDIS_NOT_DURABLE', path: 'appendonly' });
    const trusted = await configFile(config(vendor.url) + store(', durableRedis: trust'));
    const served = await startServer({ file: trusted, io: capture({ ADMIN_KEY }).io, watch: false, overrides: { port: 0 }, signals: { on: () => process, off: () => process } });
    await served.stop();
  });
});
