/** The YAML `store:` section builds this store through the config loader and closes it with the pipeline. */
import { createPipelineFromConfig, parseConfig, type Importer } from '@switchyard/core/config';
import { expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import * as storeRedis from '../src/index.js';
import { RedisStateStore } from '../src/index.js';
import { describeWithRedis, REDIS_URL, uniquePrefix } from './support/redis.js';

const modules: Record<string, Record<string, unknown>> = {
  '@switchyard/store-redis': storeRedis as Record<string, unknown>,
  '@acme/provider-test': { providers: [testProvider] },
};
const importer: Importer = async (name) => modules[name] ?? Promise.reject(new Error(`Cannot find package '${name}'`));

describeWithRedis('store: section', () => {
  it('a config that names @switchyard/store-redis gets a Redis-backed pipeline', async () => {
    const prefix = uniquePrefix('config');
    const config = parseConfig(
      `
endpoints: [ { name: a, provider: "@acme/provider-test", baseUrl: "http://127.0.0.1:9/v1" } ]
models: { chat: [ { endpoint: a, model: m } ] }
store: { use: "@switchyard/store-redis", options: { url: "\${REDIS_URL}", prefix: "${prefix}" } }
`,
      { REDIS_URL },
    );
    const pipeline = await createPipelineFromConfig(config, { importer });
    expect(pipeline.store).toBeInstanceOf(RedisStateStore);
    await pipeline.store.set('probe', { ok: true });
    expect(await pipeline.store.get('probe')).toEqual({ ok: true });
    await pipeline.store.delete('probe');
    await pipeline.close();
  });

  it('a bad store option is a config error naming the field', async () => {
    const config = parseConfig(
      `
endpoints: [ { name: a, provider: "@acme/provider-test", baseUrl: "http://127.0.0.1:9/v1" } ]
models: { chat: [ { endpoint: a, model: m } ] }
store: { use: "@switchyard/store-redis", options: { url: "http://not-redis" } }
`,
      {},
    );
    const err = await createPipelineFromConfig(config, { importer }).catch((e) => e);
    expect(err.message).toMatch(/store\.options/);
    expect(err.code).toMatch(/SWITCHYARD_ERR_(REDIS_URL|STORE_OPTIONS)/);
  });
});
