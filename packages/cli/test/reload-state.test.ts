/** State outlives a reload (SIGHUP and a file edit) and, with a snapshot file, a restart. */
import { EventEmitter } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import type { Loopback } from '../../core/test/support/loopback.js';
import { startServer } from '../src/index.js';
import { capture, cleanUp, configFile, keepServer, vendorSaying } from './support.js';

afterEach(async () => {
  await cleanUp();
  vi.useRealTimers();
});

const env = { GW_KEY: 'gw-reload-test', VENDOR_KEY: 'sk-reload-vendor-0123456789' };

const config = (vendor: Loopback, extra = '') => `
server: { host: 127.0.0.1, port: 8787, apiKeys: ["\${GW_KEY}"] }
endpoints: [{ name: up, provider: openai, baseUrl: "${vendor.url}", apiKey: "\${VENDOR_KEY}" }]
models: { chat: [{ endpoint: up, model: m }] }
plugins:
  - use: "@switchyard/plugin-quota"
    options: { budgets: [{ endpoint: up, rpm: 10 }] }
  - use: "@switchyard/plugin-cache"
    options: { ttlMs: 600000 }
${extra}`;

/**
 * rpm windows are calendar minutes: the wall clock (Date only, moving at real speed; timers stay
 * real) is set 1 s into the next minute, so ten requests and reloads fit in one window.
 */
function earlyInAMinute(): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Math.ceil(Date.now() / 60_000) * 60_000 + 1_000 });
}

async function serve(file: string, extra: { watch?: boolean; signals?: EventEmitter } = {}) {
  const out = capture(env);
  const server = await startServer({ file, io: out.io, overrides: { port: 0 }, debounceMs: 20, ...extra });
  keepServer(server);
  const client = new OpenAI({ baseURL: server.address.url, apiKey: env.GW_KEY, maxRetries: 0 });
  const ask = async (content: string) => (await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content }] })).choices[0].message.content;
  return { server, out, ask };
}

describe('state across reloads', () => {
  it('10 requests against rpm 10, reload by SIGHUP and by editing the file: the 11th is still refused, the cache still hits', { timeout: 90_000 }, async () => {
    earlyInAMinute();
    const vendor = await vendorSaying('answer');
    const file = await configFile(config(vendor));
    const signals = new EventEmitter();
    const { server, out, ask } = await serve(file, { signals });
    for (let i = 0; i < 10; i++) expect(await ask(`question ${i}`)).toBe('answer');
    expect(vendor.requests).toHaveLength(10);

    signals.emit('SIGHUP');
    await expect.poll(() => out.out, { timeout: 5_000, interval: 20 }).toMatch(/"reason":"SIGHUP".*"msg":"config reloaded"/);
    const first = server.gateway.pipeline;
    await expect(ask('question 10')).rejects.toMatchObject({ status: 429 });

    await writeFile(file, config(vendor, '# edited\n'));
    await expect.poll(() => server.gateway.pipeline !== first, { timeout: 5_000, interval: 20 }).toBe(true);
    expect(out.out).toMatch(/"reason":"file change".*"msg":"config reloaded"/);
    const refused = await ask('question 11').catch((e: { status: number; message: string }) => e);
    expect(refused).toMatchObject({ status: 429 });
    expect((refused as { message: string }).message).toContain('budget');

    // A cached answer needs no vendor call and no budget: it survived both reloads.
    expect(await ask('question 3')).toBe('answer');
    expect(vendor.requests).toHaveLength(10);
  });

  it('a reload that changes the deployment starts it fresh', { timeout: 90_000 }, async () => {
    earlyInAMinute();
    const vendor = await vendorSaying('answer');
    const file = await configFile(config(vendor));
    const { server, ask } = await serve(file, { watch: false });
    for (let i = 0; i < 10; i++) await ask(`q${i}`);
    await expect(ask('q10')).rejects.toMatchObject({ status: 429 });
    await writeFile(file, config(vendor).replaceAll('up', 'renamed'));
    expect(await server.reload('test')).toBe(true);
    expect(await ask('q11')).toBe('answer');
  });

  it('store.snapshot and the journal: a graceful stop writes soft state to the snapshot, spend to the journal; the next start loads both', { timeout: 90_000 }, async () => {
    earlyInAMinute();
    const vendor = await vendorSaying('answer');
    const file = await configFile(config(vendor, 'store: { snapshot: ./state/snapshot.json }\n'));
    const one = await serve(file, { watch: false });
    for (let i = 0; i < 10; i++) await one.ask(`q${i}`);
    await one.server.stop();
    const snapshot = JSON.parse(await readFile(path.join(path.dirname(file), 'state/snapshot.json'), 'utf8'));
    expect(snapshot.version).toBe(1);
    // Budget counters are durable records now: in the journal beside the config, not in the snapshot (soft state only).
    expect(snapshot.entries.some(([key]: [string]) => key.includes(':used:'))).toBe(false);
    const journal = await readFile(path.join(path.dirname(file), 'switchyard-records.journal'), 'utf8');
    expect(journal).toMatch(/:used:[^"]*:rpm:/);
    expect(JSON.stringify(snapshot)).not.toContain(env.VENDOR_KEY);
    expect(journal).not.toContain(env.VENDOR_KEY);

    const two = await serve(file, { watch: false });
    expect(two.out.out).toContain('"msg":"store snapshot loaded"');
    await expect(two.ask('q10')).rejects.toMatchObject({ status: 429 });
  });

  it('a snapshot together with a shared store is a config error naming the field', async () => {
    const vendor = await vendorSaying('answer');
    const file = await configFile(config(vendor, 'store: { use: "@switchyard/store-redis", snapshot: ./s.json }\n'));
    await expect(serve(file, { watch: false })).rejects.toThrow(/store\.snapshot: snapshot applies to the in-memory store only/);
  });
});
