import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock, type SwitchyardError } from '@switchyard/core';
import { loadConfigFile, parseConfig, resolveConfigSecrets, type SecretResolver } from '@switchyard/core/config';
import { parseReference, vault } from '../src/index.js';
import { startFakeVault, type FakeVault } from './fake-vault.js';

const TOKEN = 'hvs.test-token-0123456789abcdef';
let fake: FakeVault;
let resolver: SecretResolver | undefined;
let dir: string;
beforeEach(async () => {
  fake = await startFakeVault([TOKEN]);
  dir = await mkdtemp(join(tmpdir(), 'switchyard-vault-'));
});
afterEach(async () => {
  await resolver?.close?.();
  resolver = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function make(options: Record<string, unknown> = {}, clock = new VirtualClock()) {
  resolver = await vault.create({ address: fake.address, token: TOKEN, ...options }, { clock });
  return { resolver, clock };
}

describe('reading KV v2 secrets over HTTP', () => {
  it('reads a field of the latest version with the token header, or a pinned version', async () => {
    fake.put('secret', 'switchyard/openai', { api_key: 'sk-old-0123456789' });
    fake.put('secret', 'switchyard/openai', { api_key: 'sk-new-0123456789', org: 'acme' });
    const { resolver: r } = await make({ namespace: 'team-a' });
    expect(await r.read('secret/switchyard/openai#api_key')).toEqual({ value: 'sk-new-0123456789', version: '2' });
    expect(await r.read('secret/switchyard/openai?version=1#api_key')).toEqual({ value: 'sk-old-0123456789', version: '1' });
    expect(fake.reads).toEqual([
      { path: 'secret/switchyard/openai', token: TOKEN, namespace: 'team-a' },
      { path: 'secret/switchyard/openai?version=1', token: TOKEN, namespace: 'team-a' },
    ]);
  });

  it('with the mount option the whole path is under that mount', async () => {
    fake.put('kv-prod', 'apps/gw', { key: 'v' });
    const { resolver: r } = await make({ mount: 'kv-prod' });
    expect((await r.read('apps/gw#key')).value).toBe('v');
    expect(parseReference('a/b/c#f')).toEqual({ mount: 'a', path: 'b/c', version: undefined, field: 'f' });
  });

  it.each<[string, () => void, string, RegExp]>([
    ['a wrong token', () => fake.tokens.clear(), 'secret/app#key', /secret\/app: permission denied/],
    ['a missing secret', () => undefined, 'secret/none#key', /secret\/none: no such secret/],
    ['a missing field', () => undefined, 'secret/app#nope', /no field "nope" \(it has: key\)/],
    ['a deleted version', () => fake.deleteVersion('secret', 'app', 1), 'secret/app?version=1#key', /no such secret version/],
    ['a reference without a field', () => undefined, 'secret/app', /expected mount\/path#field/],
    ['a reference without a mount', () => undefined, 'app#key', /names no mount/],
  ])('%s is a coded error naming the reference, never the token', async (_name, arrange, reference, message) => {
    fake.put('secret', 'app', { key: 'value-0123456789' });
    arrange();
    const { resolver: r } = await make();
    const err = (await r.read(reference).catch((e) => e)) as SwitchyardError;
    expect(err).toMatchObject({ kind: 'config', code: 'SWITCHYARD_ERR_CONFIG_SECRET' });
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain(TOKEN);
    expect(err.message).not.toContain('value-0123456789');
  });

  it('a Vault that does not answer times out on the injected clock', async () => {
    const { createServer } = await import('node:http');
    let asked = false;
    const silent = createServer(() => void (asked = true));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const clock = new VirtualClock();
    try {
      resolver = await vault.create({ address: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, token: TOKEN, timeoutMs: 2_000 }, { clock });
      const pending = resolver.read('secret/app#key').catch((e) => e);
      await expect.poll(() => asked, { timeout: 5_000, interval: 5 }).toBe(true);
      await clock.advance(2_000);
      expect((await pending).message).toMatch(/did not answer \(no answer within 2000 ms\)/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('refuses bad options with a coded error', async () => {
    await expect(vault.create({ address: 'vault:8200', token: TOKEN }, { clock: new VirtualClock() })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'options.address' });
    await expect(vault.create({ address: fake.address }, { clock: new VirtualClock() })).rejects.toMatchObject({ path: 'options.token' });
  });
});

describe('rotation: polling versions and renewing the token on the injected clock', () => {
  it('reports a new version of a watched secret after pollMs, once; pinned ones are not polled', async () => {
    fake.put('secret', 'app', { key: 'one' });
    const { resolver: r, clock } = await make({ pollMs: 30_000 });
    const read = new Map([
      ['secret/app#key', await r.read('secret/app#key')],
      ['secret/app?version=1#key', await r.read('secret/app?version=1#key')],
    ]);
    const changed: string[] = [];
    // A poll re-arms its timer once its read finished: the clock moves on only after that, or
    // the next poll would be armed late.
    const arms = vi.spyOn(clock, 'setTimeout');
    const stop = r.watch!(read, (ref) => changed.push(ref));
    const readsBefore = fake.reads.length;
    const pollDone = async (polls: number) => {
      await expect.poll(() => fake.reads.length, { timeout: 5_000 }).toBe(readsBefore + polls);
      await expect.poll(() => arms.mock.calls.filter(([, ms]) => ms === 30_000).length, { timeout: 5_000 }).toBe(1 + polls);
    };
    await clock.advance(29_000);
    expect(fake.reads.length).toBe(readsBefore);
    await clock.advance(1_000);
    await pollDone(1);
    expect(changed).toEqual([]);

    fake.put('secret', 'app', { key: 'two' });
    await clock.advance(30_000);
    await pollDone(2);
    expect(changed).toEqual(['secret/app#key']);
    await clock.advance(30_000);
    await pollDone(3);
    expect(changed).toEqual(['secret/app#key']);
    expect(fake.reads.every((x) => x.path !== 'secret/app?version=1' || fake.reads.indexOf(x) < readsBefore)).toBe(true);
    stop();
    await clock.advance(120_000);
    expect(fake.reads.length).toBe(readsBefore + 3);
  });

  it('reports failed checks, and renews the token every renewTokenMs', async () => {
    fake.put('secret', 'app', { key: 'one' });
    const { resolver: r, clock } = await make({ pollMs: 45_000, renewTokenMs: 30_000 });
    const errors: SwitchyardError[] = [];
    r.watch!(new Map([['secret/app#key', await r.read('secret/app#key')]]), () => undefined, (e) => errors.push(e));
    // One step per timer, each answered before the clock moves on (a request's own timeout is on the clock too).
    await clock.advance(30_000);
    await expect.poll(() => fake.renewals.length).toBe(1);
    expect(fake.renewals[0]).toEqual({ token: TOKEN });
    fake.tokens.clear();
    await clock.advance(15_000);
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]!.message).toMatch(/secret\/app: permission denied/);
    await clock.advance(15_000);
    await expect.poll(() => errors.length).toBe(2);
    expect(errors[1]!.message).toMatch(/token renewal: Vault answered HTTP 403: permission denied/);
    await r.close!();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('a config that reads its keys from Vault', () => {
  const importer = (specifier: string) => import(specifier) as Promise<Record<string, unknown>>;
  const config = (address: string) => `
secrets:
  - use: "@switchyard/plugin-vault"
    options: { address: "${address}", token: "\${VAULT_TOKEN}" }
endpoints:
  - { name: openai, provider: openai, apiKey: "\${vault:secret/switchyard/openai#api_key}" }
  - { name: off, provider: openai, enabled: false, apiKey: "\${vault:secret/not-there#key}" }
models: { chat: [{ endpoint: openai, model: gpt-4o }] }
`;

  it('substitutes the value; the resolvers read what the config references and can watch it', async () => {
    fake.put('secret', 'switchyard/openai', { api_key: 'sk-from-vault-0123456789' });
    const text = config(fake.address);
    const env = { VAULT_TOKEN: TOKEN };
    const secrets = await resolveConfigSecrets(text, env, join(dir, 'switchyard.yaml'), { importer, clock: new VirtualClock() });
    try {
      expect(parseConfig(text, env, undefined, secrets.values).endpoints[0]!.apiKey).toBe('sk-from-vault-0123456789');
      expect(secrets.resolvers.map((r) => [r.scheme, [...r.read.keys()]])).toEqual([['vault', ['secret/switchyard/openai#api_key']]]);
    } finally {
      await secrets.close();
    }
    // loadConfigFile does the same for a file, and closes its resolvers.
    const file = join(dir, 'switchyard.yaml');
    await writeFile(file, text);
    expect((await loadConfigFile(file, env, { importer })).endpoints[0]!.apiKey).toBe('sk-from-vault-0123456789');
  });

  it('names the place a secret that cannot be read is used, without its value or the token', async () => {
    const err = await resolveConfigSecrets(config(fake.address), { VAULT_TOKEN: TOKEN }, undefined, { importer }).catch((e) => e);
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG_SECRET', path: 'endpoints[0].apiKey' });
    expect(err.message).toMatch(/endpoints\[0\]\.apiKey: cannot read \$\{vault:secret\/switchyard\/openai#api_key\}: secret\/switchyard\/openai: no such secret/);
    expect(err.message).not.toContain(TOKEN);
  });

  it('a ${scheme:…} without a resolver, or used in a resolver\'s own options, is a config error', async () => {
    const bare = 'endpoints: [{ name: a, provider: openai, apiKey: "${vault:secret/x#k}" }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n';
    await expect(resolveConfigSecrets(bare, {}, undefined, { importer })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG_SECRET', path: 'endpoints[0].apiKey', message: expect.stringMatching(/needs a secret resolver for "vault"/) });
    expect(() => parseConfig(bare, {})).toThrow(/external secret; list a secret resolver for "vault"/);
    const nested = config(fake.address).replace('${VAULT_TOKEN}', '${vault:secret/token#t}');
    await expect(resolveConfigSecrets(nested, {}, undefined, { importer })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG_SECRET', path: 'secrets[0].options.token', message: expect.stringMatching(/cannot use an external/) });
    await expect(resolveConfigSecrets(config(fake.address).replace('@switchyard/plugin-vault', '@switchyard/core'), { VAULT_TOKEN: TOKEN }, undefined, { importer })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_INVALID', path: 'secrets[0].use' });
    await expect(resolveConfigSecrets(config('not a url'), { VAULT_TOKEN: TOKEN }, undefined, { importer })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'secrets[0].options.address' });
  });
});
