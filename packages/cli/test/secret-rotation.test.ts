import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { VirtualClock } from '@switchyard/core';
import { completion, startLoopback } from '../../core/test/support/loopback.js';
import { startFakeVault, type FakeVault } from '../../../plugins/vault/test/fake-vault.js';
import { startServer } from '../src/index.js';
import { capture, cleanUp, configFile, keepServer, keepVendors } from './support.js';

let vaultServer: FakeVault | undefined;
afterEach(async () => {
  await cleanUp();
  await vaultServer?.close();
  vaultServer = undefined;
});

const GW_KEY = 'gw-rotation-test';
const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

/** A vendor that records the key of every request; while `hold` is set it keeps answers back until released. */
async function keyRecordingVendor() {
  const keys: string[] = [];
  const held: (() => void)[] = [];
  const state = { hold: false };
  const vendor = await startLoopback(async (req, res) => {
    keys.push(String(req.headers.authorization).replace(/^Bearer /, ''));
    if (state.hold) await new Promise<void>((r) => held.push(r));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion('ok')));
  });
  keepVendors(vendor);
  return { vendor, keys, held, state };
}

const config = (url: string, apiKey: string, head = '') => `${head}
server: { host: 127.0.0.1, port: 8787, apiKeys: ["${GW_KEY}"] }
endpoints: [{ name: up, provider: openai, baseUrl: "${url}", apiKey: "${apiKey}" }]
models: { chat: [{ endpoint: up, model: m }] }
`;

const reloads = (out: string) => out.split('\n').filter((l) => l.includes('"msg":"config reloaded"'));

describe('serve reloads when a secret changes, without a signal', () => {
  it('a ${file:} secret replaced on disk: new requests use the new key, one in flight finishes on the old', async () => {
    const { vendor, keys, held, state } = await keyRecordingVendor();
    const file = await configFile(config(vendor.url, '${file:secrets/vendor-key}'));
    const dir = path.dirname(file);
    await import('node:fs/promises').then((fs) => fs.mkdir(path.join(dir, 'secrets')));
    await writeFile(path.join(dir, 'secrets/vendor-key'), 'sk-old-key-0123456789\n');
    const out = capture();
    const server = keepServer(await startServer({ file, io: out.io, overrides: { port: 0 }, debounceMs: 20 }));
    const client = new OpenAI({ baseURL: server.address.url, apiKey: GW_KEY, maxRetries: 0 });
    await client.chat.completions.create(ask);
    expect(keys).toEqual(['sk-old-key-0123456789']);

    state.hold = true;
    const inFlight = client.chat.completions.create(ask);
    await expect.poll(() => held.length).toBe(1);
    state.hold = false;

    // An atomic replace (write elsewhere, rename over it), as secret managers and Kubernetes do.
    await writeFile(path.join(dir, 'secrets/.vendor-key.tmp'), 'sk-new-key-9876543210\n');
    await rename(path.join(dir, 'secrets/.vendor-key.tmp'), path.join(dir, 'secrets/vendor-key'));
    await expect.poll(() => reloads(out.out).length, { timeout: 5_000, interval: 20 }).toBe(1);
    expect(reloads(out.out)[0]).toContain('secret change:');
    await client.chat.completions.create(ask);
    expect(keys.at(-1)).toBe('sk-new-key-9876543210');

    held[0]!();
    expect((await inFlight).choices[0].message.content).toBe('ok');
    expect(keys[1]).toBe('sk-old-key-0123456789');

    // Rewriting the same contents is not a change.
    await writeFile(path.join(dir, 'secrets/vendor-key'), 'sk-new-key-9876543210\n');
    // An absence (no reload) has no condition to wait on: a window of ten debounce periods in
    // which the folder watcher's event would have led to one.
    await new Promise((r) => setTimeout(r, 200));
    expect(reloads(out.out)).toHaveLength(1);
    expect(out.out).not.toContain('sk-new-key-9876543210');
    expect(out.out).not.toContain('sk-old-key-0123456789');
  });

  it('a Kubernetes Secret volume update (the ..data symlink swapped) is seen too', async () => {
    const { vendor, keys } = await keyRecordingVendor();
    const file = await configFile(config(vendor.url, '${file:secrets/vendor-key}'));
    const mount = path.join(path.dirname(file), 'secrets');
    const fs = await import('node:fs/promises');
    // The layout the kubelet writes: key -> ..data/key, ..data -> ..<timestamp>/.
    await fs.mkdir(path.join(mount, '..2025_01'), { recursive: true });
    await writeFile(path.join(mount, '..2025_01/vendor-key'), 'sk-k8s-one-0123456789');
    await fs.symlink('..2025_01', path.join(mount, '..data'));
    await fs.symlink('..data/vendor-key', path.join(mount, 'vendor-key'));
    const out = capture();
    const server = keepServer(await startServer({ file, io: out.io, overrides: { port: 0 }, debounceMs: 20 }));
    const client = new OpenAI({ baseURL: server.address.url, apiKey: GW_KEY, maxRetries: 0 });
    await client.chat.completions.create(ask);

    await fs.mkdir(path.join(mount, '..2025_02'));
    await writeFile(path.join(mount, '..2025_02/vendor-key'), 'sk-k8s-two-0123456789');
    await fs.symlink('..2025_02', path.join(mount, '..data_tmp'));
    await rename(path.join(mount, '..data_tmp'), path.join(mount, '..data'));
    await expect.poll(() => reloads(out.out).length, { timeout: 5_000, interval: 20 }).toBe(1);
    await client.chat.completions.create(ask);
    expect(keys).toEqual(['sk-k8s-one-0123456789', 'sk-k8s-two-0123456789']);
  });

  it('a new version in Vault, seen by polling on the injected clock, reloads with the new key', async () => {
    const { vendor, keys } = await keyRecordingVendor();
    vaultServer = await startFakeVault(['hvs.serve-token-0123']);
    vaultServer.put('secret', 'gateway/openai', { key: 'sk-vault-v1-0123456789' });
    const head = `secrets:\n  - use: "@switchyard/plugin-vault"\n    options: { address: "${vaultServer.address}", token: "\${VAULT_TOKEN}", pollMs: 60000 }`;
    const file = await configFile(config(vendor.url, '${vault:secret/gateway/openai#key}', head));
    const clock = new VirtualClock();
    const out = capture({ VAULT_TOKEN: 'hvs.serve-token-0123' });
    const server = keepServer(await startServer({ file, io: out.io, overrides: { port: 0 }, debounceMs: 20, clock }));
    const client = new OpenAI({ baseURL: server.address.url, apiKey: GW_KEY, maxRetries: 0 });
    await client.chat.completions.create(ask);
    expect(keys).toEqual(['sk-vault-v1-0123456789']);

    vaultServer.put('secret', 'gateway/openai', { key: 'sk-vault-v2-9876543210' });
    await clock.advance(59_000);
    // An absence: the window in which a poll fired too early would have read Vault and reloaded.
    await new Promise((r) => setTimeout(r, 50));
    expect(reloads(out.out)).toHaveLength(0);
    await clock.advance(1_000);
    await expect.poll(() => reloads(out.out).length, { timeout: 5_000, interval: 20 }).toBe(1);
    expect(reloads(out.out)[0]).toContain('secret change: ${vault:secret/gateway/openai#key}');
    await client.chat.completions.create(ask);
    expect(keys.at(-1)).toBe('sk-vault-v2-9876543210');
    expect(out.out).not.toContain('sk-vault-v');
    expect(out.out).not.toContain('hvs.serve-token-0123');

    // The new config's resolver watches the new version; the old one was closed.
    await clock.advance(60_000);
    // An absence again: a second reload, had the old resolver still been polling, would come in this window.
    await new Promise((r) => setTimeout(r, 50));
    expect(reloads(out.out)).toHaveLength(1);
  });

  it('--no-watch turns secret watching off too', async () => {
    const { vendor, keys } = await keyRecordingVendor();
    vaultServer = await startFakeVault(['hvs.t-0123456789']);
    vaultServer.put('secret', 'gw', { key: 'sk-one-0123456789' });
    const head = `secrets:\n  - use: "@switchyard/plugin-vault"\n    options: { address: "${vaultServer.address}", token: "hvs.t-0123456789", pollMs: 1000 }`;
    const file = await configFile(config(vendor.url, '${vault:secret/gw#key}', head));
    const clock = new VirtualClock();
    const out = capture();
    const server = keepServer(await startServer({ file, io: out.io, overrides: { port: 0 }, watch: false, clock }));
    vaultServer.put('secret', 'gw', { key: 'sk-two-0123456789' });
    await clock.advance(5_000);
    expect(vaultServer.reads).toHaveLength(1);
    await new OpenAI({ baseURL: server.address.url, apiKey: GW_KEY, maxRetries: 0 }).chat.completions.create(ask);
    expect(keys).toEqual(['sk-one-0123456789']);
    // A manual reload (SIGHUP) reads the store again.
    expect(await server.reload('SIGHUP')).toBe(true);
    await new OpenAI({ baseURL: server.address.url, apiKey: GW_KEY, maxRetries: 0 }).chat.completions.create(ask);
    expect(keys.at(-1)).toBe('sk-two-0123456789');
  });

  it('validate reads external secrets and reports one it cannot read, naming where it is used', async () => {
    vaultServer = await startFakeVault(['hvs.v-0123456789']);
    const head = `secrets:\n  - use: "@switchyard/plugin-vault"\n    options: { address: "${vaultServer.address}", token: "hvs.v-0123456789" }`;
    const file = await configFile(config('http://127.0.0.1:9/v1', '${vault:secret/missing#key}', head));
    const { main } = await import('../src/index.js');
    const bad = capture();
    expect(await main(['validate', '--config', file], bad.io)).toBe(1);
    expect(bad.err).toContain('endpoints[0].apiKey: cannot read ${vault:secret/missing#key}: secret/missing: no such secret');
    expect(bad.err).toContain('SWITCHYARD_ERR_CONFIG_SECRET');
    vaultServer.put('secret', 'missing', { key: 'sk-here-0123456789' });
    const good = capture();
    expect(await main(['validate', '--config', file], good.io)).toBe(0);
  });
});
