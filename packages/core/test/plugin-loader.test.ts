import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, MemoryStateStore } from '../src/index.js';
import { createPipelineFromConfig, parseConfig, type Importer } from '../src/entry-config.js';
import { testProvider } from './support/test-provider.js';

const yaml = (plugins: string) => `
endpoints:
  - { name: a, provider: "@acme/provider-test", baseUrl: "http://127.0.0.1:9/v1" }
models:
  chat: [ { endpoint: a, model: m } ]
plugins:
${plugins}
`;

const limiter = definePlugin({
  name: '@acme/plugin-limit',
  core: '^0.1.0',
  optionsSchema: z.object({ max: z.number().int().positive().default(3) }).strict(),
  apply(pipeline, options) {
    (pipeline as unknown as { limit?: number }).limit = options.max;
  },
});

class ClosableStore extends MemoryStateStore {
  closed = false;
  constructor(readonly options: unknown) {
    super();
  }
  override async close(): Promise<void> {
    this.closed = true;
  }
}

const modules: Record<string, Record<string, unknown>> = {
  '@acme/store': { default: (options: unknown) => new ClosableStore(options) },
  '@acme/provider-test': { providers: [testProvider] },
  '@acme/plugin-limit': { default: limiter },
  '@acme/not-a-plugin': { default: { name: 'x' } },
  '@acme/old-plugin': { default: definePlugin({ name: '@acme/old-plugin', core: '^0.0.1', apply() {} }) },
};
const importer: Importer = async (name) => {
  const mod = modules[name];
  if (!mod) throw new Error(`Cannot find package '${name}'`);
  return mod;
};

describe('plugin loader', () => {
  it('imports providers and use: plugins, parsing options', async () => {
    const pipeline = await createPipelineFromConfig(parseConfig(yaml('  - { use: "@acme/plugin-limit", options: { max: 7 } }'), {}), { importer });
    expect((pipeline as unknown as { limit: number }).limit).toBe(7);
    expect(pipeline.plugins.map((p) => p.name)).toEqual(['@acme/plugin-limit']);
    expect(pipeline.providers.has('test')).toBe(true);
    await pipeline.close();
  });

  it.each([
    ['  - { use: "@acme/plugin-limit", options: { max: -2 } }', 'SWITCHYARD_ERR_PLUGIN_OPTIONS', 'plugins[0].options.max'],
    ['  - { use: "@acme/plugin-limit", options: { mux: 2 } }', 'SWITCHYARD_ERR_PLUGIN_OPTIONS', 'plugins[0].options'],
    ['  - "@acme/missing"', 'SWITCHYARD_ERR_PLUGIN_IMPORT', 'plugins[0]: cannot import "@acme/missing"'],
    ['  - "@acme/not-a-plugin"', 'SWITCHYARD_ERR_PLUGIN_INVALID', 'plugins[0]'],
    ['  - "@acme/old-plugin"', 'SWITCHYARD_ERR_PLUGIN_VERSION_MISMATCH', 'needs @switchyard/core ^0.0.1'],
  ])('%s → %s', async (entry, code, text) => {
    const err = await createPipelineFromConfig(parseConfig(yaml(entry), {}), { importer }).catch((e) => e);
    expect(err.code).toBe(code);
    expect(err.message).toContain(text);
  });

  it('a misspelt provider id names the built-in ids', async () => {
    const text = yaml('  []').replace('@acme/provider-test', 'antropic').replace('plugins:\n  []', 'plugins: []');
    const err = await createPipelineFromConfig(parseConfig(text, {}), { importer }).catch((e) => e);
    expect(err.code).toBe('SWITCHYARD_ERR_PLUGIN_IMPORT');
    expect(err.message).toContain('endpoints[0].provider: cannot import "antropic"');
    expect(err.message).toContain('not a built-in provider id either (openai, azure, azure-foundry, openai-compatible, dashscope, zhipu, moonshot, qianfan, deepseek, anthropic, azure-foundry-anthropic, gemini, bedrock, vertex)');
  });

  it('an endpoint whose provider package exports no provider fails at load', async () => {
    const text = yaml('  []').replace('@acme/provider-test', '@acme/plugin-limit').replace('plugins:\n  []', 'plugins: []');
    const err = await createPipelineFromConfig(parseConfig(text, {}), { importer }).catch((e) => e);
    expect(err.code).toBe('SWITCHYARD_ERR_PLUGIN_INVALID');
    expect(err.message).toContain('endpoints[0].provider');
  });

  it('builds the store the config names and closes it with the pipeline', async () => {
    const text = yaml('  []').replace('plugins:\n  []', 'plugins: []\nstore: { use: "@acme/store", options: { url: "redis://127.0.0.1:6390" } }');
    const pipeline = await createPipelineFromConfig(parseConfig(text, {}), { importer });
    const store = pipeline.store as ClosableStore;
    expect(store).toBeInstanceOf(ClosableStore);
    expect(store.options).toEqual({ url: 'redis://127.0.0.1:6390' });
    await pipeline.close();
    expect(store.closed).toBe(true);
  });

  it('a store package that makes no StateStore fails at load', async () => {
    const text = yaml('  []').replace('plugins:\n  []', 'plugins: []\nstore: { use: "@acme/plugin-limit" }');
    const err = await createPipelineFromConfig(parseConfig(text, {}), { importer }).catch((e) => e);
    expect(err.code).toBe('SWITCHYARD_ERR_PLUGIN_INVALID');
    expect(err.message).toContain('store.use');
  });
});
