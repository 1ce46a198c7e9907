/** Issue 38: `validate` names every problem of every phase in one run. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '@switchyard/core/config';
import { main } from '../src/index.js';
import { capture, cleanUp, configFile } from './support.js';
import { describeWithRedis, REDIS_URL } from '../../../plugins/store-redis/test/support/redis.js';

afterEach(cleanUp);

const here = path.dirname(fileURLToPath(import.meta.url));
const EXAMPLE = path.resolve(here, '../../../examples/gateway/switchyard.yaml');

async function validate(yaml: string, env: Record<string, string> = {}) {
  const file = await configFile(yaml);
  const out = capture(env);
  const code = await main(['validate', '--config', file], out.io);
  return { code, err: out.err, out: out.out };
}

describe('validate: every phase in one run (issue 38)', () => {
  it('reports unset variables, a schema error, a bad reference and a plugin option, with "did you mean"', async () => {
    const { code, err } = await validate(
      [
        'endpoints:',
        '  - { name: primary, provider: openai, apiKey: "${OPENAI_API_KEY}" }',
        '  - { name: backup, provider: openai, apiKey: "${BACKUP_API_KEY}", baseURL: "https://api.example.com/v1" }',
        'models: { chat: [{ endpoint: primery, model: m }, { endpoint: backup, model: m }] }',
        'plugins: [{ use: "@switchyard/plugin-retry", options: { maxAttempts: 2 } }]',
        '',
      ].join('\n'),
    );
    expect(code).toBe(1);
    expect(err).toContain('endpoints[0].apiKey: environment variable OPENAI_API_KEY is not set');
    expect(err).toContain('endpoints[1].apiKey: environment variable BACKUP_API_KEY is not set');
    expect(err).toContain('endpoints[1]: unknown field(s) "baseURL" (did you mean "baseUrl"?)');
    expect(err).toContain('models.chat[0].endpoint: unknown endpoint "primery" (did you mean "primary"?)');
    expect(err).toContain('plugins[0].options: unknown field(s) "maxAttempts" (did you mean "maxAttemptsPerCandidate"?)');
    expect(err).toMatch(/^error: 5 problem\(s\)/);
  });

  it('names every unset variable of the example config at once', async () => {
    const out = capture({});
    expect(await main(['validate', '-c', EXAMPLE], out.io)).toBe(1);
    for (const name of ['OPENAI_API_KEY', 'AZURE_OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'DEEPSEEK_API_KEY']) expect(out.err).toContain(`environment variable ${name} is not set`);
  });

  it('lets ${VAR} feed a number or a boolean', async () => {
    const yaml = 'server: { port: "${SWITCHYARD_PORT:-8080}", exposeUpstream: "${EXPOSE:-false}" }\nendpoints: [{ name: a, provider: openai }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n';
    expect(parseConfig(yaml, {}).server).toMatchObject({ port: 8080, exposeUpstream: false });
    expect(parseConfig(yaml, { SWITCHYARD_PORT: '9090', EXPOSE: 'true' }).server).toMatchObject({ port: 9090, exposeUpstream: true });
    // Block style, as the issue wrote it.
    expect(parseConfig('server:\n  port: ${SWITCHYARD_PORT:-8080}\nendpoints: [{ name: a, provider: openai }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n', {}).server?.port).toBe(8080);
    expect(() => parseConfig(yaml, { SWITCHYARD_PORT: 'eighty' })).toThrow(/server\.port: Invalid input: expected number/);
    expect((await validate(yaml)).code).toBe(0);
  });

  it("catches each provider's common base URL mistakes", async () => {
    const { code, err } = await validate(
      [
        'endpoints:',
        '  - { name: claude, provider: anthropic, baseUrl: "https://api.anthropic.com", apiKey: k }',
        '  - { name: ds-claude, provider: anthropic, baseUrl: "https://api.deepseek.com/anthropic", apiKey: k }',
        '  - { name: az, provider: azure, baseUrl: "https://acme.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21", apiKey: k }',
        '  - { name: ok-claude, provider: anthropic, baseUrl: "https://api.anthropic.com/v1", apiKey: k }',
        '  - { name: ok-az, provider: azure, baseUrl: "https://acme.openai.azure.com", apiKey: k }',
        'models: { chat: [{ endpoint: claude, model: m }, { endpoint: ds-claude, model: m }, { endpoint: az, model: gpt-4o }, { endpoint: ok-claude, model: m }, { endpoint: ok-az, model: m }] }',
        '',
      ].join('\n'),
    );
    expect(code).toBe(1);
    expect(err).toContain('endpoints[0].baseUrl: an Anthropic base URL ends with /v1 (requests go to {baseUrl}/messages): write "https://api.anthropic.com/v1"');
    expect(err).toContain('endpoints[1].baseUrl: an Anthropic base URL ends with /v1 (requests go to {baseUrl}/messages): write "https://api.deepseek.com/anthropic/v1"');
    expect(err).toContain('endpoints[2].baseUrl: an Azure base URL is the resource root ("https://acme.openai.azure.com")');
    expect(err).not.toContain('endpoints[3]');
    expect(err).not.toContain('endpoints[4]');
  });
});

describeWithRedis('validate with a Redis store', () => {
  it('says nothing of Redis being unavailable while it answers', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { code, err } = await validate(
        `endpoints: [{ name: a, provider: openai, apiKey: k }]\nmodels: { chat: [{ endpoint: a, model: m }] }\nstore: { use: "@switchyard/store-redis", options: { url: "${REDIS_URL}", prefix: "i38-validate:" } }\nplugins: ["@switchyard/plugin-circuit-breaker", "@switchyard/plugin-health", { use: "@switchyard/plugin-quota", options: {} }]\n`,
      );
      expect(err).toBe('');
      expect(code).toBe(0);
      // Let a late command of the closed store fail, as it did.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.message).filter((m) => m.includes('unavailable'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
