import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SwitchyardError } from '../src/index.js';
import { defineSecretResolver, parseConfig, resolveConfigSecrets, type SecretValue } from '../src/entry-config.js';

/** An in-memory store behind the resolver interface: what a third-party package would export. */
function memoryStore(values: Record<string, string>) {
  const reads: string[] = [];
  let closed = 0;
  const factory = defineSecretResolver({
    scheme: 'mem',
    optionsSchema: z.object({ prefix: z.string().default('') }).strict(),
    create: ({ prefix }) => ({
      async read(reference: string): Promise<SecretValue> {
        reads.push(reference);
        const value = values[prefix + reference];
        if (value === undefined) throw new SwitchyardError('config', `${reference}: not in the store`, { code: 'SWITCHYARD_ERR_CONFIG_SECRET' });
        return { value, version: '1' };
      },
      async close() {
        closed++;
      },
    }),
  });
  return { factory, reads, closed: () => closed };
}

const configWith = (secretsSection: string, apiKey: string) => `${secretsSection}
endpoints:
  - { name: a, provider: openai, apiKey: "${apiKey}", headers: { x-proxy: "\${http_proxy:-none}" } }
  - { name: off, provider: openai, enabled: false, apiKey: "\${mem:absent}" }
models: { chat: [{ endpoint: a, model: m }] }
`;

describe('external secret resolvers', () => {
  it('reads each referenced secret once through the resolver its scheme names, and parseConfig substitutes it', async () => {
    const store = memoryStore({ 'team/openai': 'sk-from-store-0123456789' });
    const text = configWith('secrets:\n  - use: "@acme/secrets-mem"\n    options: { prefix: "team/" }', 'pre-${mem:openai}');
    const secrets = await resolveConfigSecrets(text, {}, undefined, { importer: async () => ({ default: store.factory }) });
    const config = parseConfig(text, {}, undefined, secrets.values);
    expect(config.endpoints[0]).toMatchObject({ apiKey: 'pre-sk-from-store-0123456789', headers: { 'x-proxy': 'none' } });
    // A disabled endpoint's references are not read; `${lower_case:-default}` is a variable.
    expect(store.reads).toEqual(['openai']);
    expect(secrets.resolvers[0]).toMatchObject({ scheme: 'mem', read: new Map([['openai', { value: 'sk-from-store-0123456789', version: '1' }]]) });
    await secrets.close();
    expect(store.closed()).toBe(1);
  });

  it('a config without external references imports nothing', async () => {
    let imported = 0;
    const secrets = await resolveConfigSecrets(configWith('', '${KEY:-k}').replace('"${mem:absent}"', '"x"'), {}, undefined, { importer: async () => ((imported += 1), {}) });
    expect(secrets.values.size).toBe(0);
    expect(imported).toBe(0);
  });

  it('errors name the reference and where it is used, and close the resolvers already made', async () => {
    const store = memoryStore({});
    const text = configWith('secrets: ["@acme/secrets-mem"]', '${mem:missing}');
    const err = await resolveConfigSecrets(text, {}, undefined, { importer: async () => ({ default: store.factory }) }).catch((e) => e);
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG_SECRET', path: 'endpoints[0].apiKey', message: 'endpoints[0].apiKey: cannot read ${mem:missing}: missing: not in the store' });
    expect(store.closed()).toBe(1);
    await expect(resolveConfigSecrets(configWith('secrets: ["@acme/secrets-mem"]', '${other:x}'), {}, undefined, { importer: async () => ({ default: store.factory }) })).rejects.toThrow(/needs a secret resolver for "other"/);
    await expect(resolveConfigSecrets(configWith('secrets:\n  - { use: "@acme/secrets-mem", options: { prefx: 1 } }', '${mem:x}'), {}, undefined, { importer: async () => ({ default: store.factory }) })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'secrets[0].options' });
    expect(() => defineSecretResolver({ scheme: 'File', create: () => ({ read: async () => ({ value: '' }) }) })).toThrow(/must be lowercase/);
  });
});
