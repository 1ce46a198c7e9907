import { EventEmitter } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { Loopback } from '../../core/test/support/loopback.js';
import { main, startServer } from '../src/index.js';
import { capture, cleanUp, configFile, keepServer, vendorSaying } from './support.js';

afterEach(cleanUp);

const config = (vendor: Loopback) => `
server: { host: 127.0.0.1, port: 8787, apiKeys: ["\${GW_KEY}"] }
endpoints: [{ name: up, provider: openai, baseUrl: "${vendor.url}", apiKey: "\${VENDOR_KEY}" }]
models: { chat: [{ endpoint: up, model: m }] }
`;

const env = { GW_KEY: 'gw-serve-test', VENDOR_KEY: 'sk-serve-vendor-0123456789' };
const logLines = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

async function serve(file: string, extra: { watch?: boolean; signals?: EventEmitter } = {}) {
  const out = capture(env);
  const server = await startServer({ file, io: out.io, overrides: { port: 0 }, debounceMs: 20, ...extra });
  keepServer(server);
  const client = new OpenAI({ baseURL: server.address.url, apiKey: env.GW_KEY, maxRetries: 0 });
  const answer = async () => (await client.chat.completions.create(ask)).choices[0].message.content;
  return { server, out, answer };
}

describe('serve', () => {
  it('reloads when the config file changes and keeps the old config when the new one is broken', async () => {
    const a = await vendorSaying('from A');
    const b = await vendorSaying('from B');
    const file = await configFile(config(a));
    const { out, answer } = await serve(file);
    expect(await answer()).toBe('from A');

    await writeFile(file, config(b));
    await expect.poll(answer, { timeout: 5_000, interval: 30 }).toBe('from B');
    expect(logLines(out.out)).toContainEqual(expect.objectContaining({ level: 'info', msg: 'config reloaded', reason: 'file change', event: 'reload' }));

    await writeFile(file, config(a).replace('endpoints:', 'endpoints: [oops'));
    await expect.poll(() => out.out, { timeout: 5_000, interval: 30 }).toContain('"msg":"config reload rejected; the running config stays"');
    expect(logLines(out.out).find((l) => l.ok === false)).toMatchObject({ level: 'error', error: expect.stringContaining('invalid YAML') });
    expect(await answer()).toBe('from B');
    for (const secret of Object.values(env)) expect(out.out).not.toContain(secret);
    // Every line is JSON with an access line per request.
    expect(logLines(out.out).filter((l) => l.event === 'access').length).toBeGreaterThanOrEqual(3);
  });

  it('reloads on SIGHUP, rejects a config that loses its variables, and shuts down on SIGTERM', async () => {
    const a = await vendorSaying('from A');
    const b = await vendorSaying('from B');
    const file = await configFile(config(a));
    const signals = new EventEmitter();
    const { server, out, answer } = await serve(file, { watch: false, signals });
    expect(await answer()).toBe('from A');

    await writeFile(file, config(b));
    expect(await answer()).toBe('from A'); // not watching: nothing changes until SIGHUP
    signals.emit('SIGHUP');
    await expect.poll(answer, { interval: 20 }).toBe('from B');

    await writeFile(file, config(a).replace('${VENDOR_KEY}', '${MISSING_KEY}'));
    expect(await server.reload('test')).toBe(false);
    expect(out.out).toContain('environment variable MISSING_KEY is not set');
    expect(await answer()).toBe('from B');

    signals.emit('SIGTERM');
    await server.stopped;
    expect(logLines(out.out)).toContainEqual(expect.objectContaining({ level: 'info', msg: 'shutting down', signal: 'SIGTERM' }));
    await expect(answer()).rejects.toThrow();
  });

  it('serve exits 1 with a readable error when the config is invalid, 2 for a bad --port', async () => {
    const file = await configFile('endpoints: []\nmodels: {}\n');
    const bad = capture();
    expect(await main(['serve', '--config', file], bad.io)).toBe(1);
    expect(bad.err).toContain('endpoints: at least one endpoint is needed');
    const port = capture();
    expect(await main(['serve', '--port', 'eighty'], port.io)).toBe(2);
    expect(port.err).toContain('--port must be a number');
  });
});
