/** Issue 38: `switchyard import` turns the configs teams arrive with into configs that validate. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../src/index.js';
import { capture, cleanUp, configFile } from './support.js';

afterEach(cleanUp);

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'import');

/** A dummy value for every `${VAR}` the translated config references. */
function dummyEnv(yaml: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name] of yaml.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) env[name] = name.endsWith('_BASE') ? 'https://acme.openai.azure.com' : `dummy-${name.toLowerCase()}`;
  return env;
}

async function importAndValidate(fixture: string) {
  const imported = capture({}, fixtures);
  expect(await main(['import', fixture], imported.io), imported.err).toBe(0);
  const file = await configFile(imported.out);
  const checked = capture(dummyEnv(imported.out));
  const code = await main(['validate', '--config', file], checked.io);
  expect(checked.err, `${imported.out}\n${checked.err}`).toBe('');
  expect(code).toBe(0);
  return { yaml: imported.out, config: parse(imported.out) as Record<string, any>, notes: imported.err, validated: checked.out };
}

describe('switchyard import', () => {
  it("translates the RobustAIClient design's endpoints (Azure deployment URL, Anthropic URL without /v1) into a config that validates", async () => {
    const { config, notes } = await importAndValidate('robust-ai-client.yaml');
    const byName = Object.fromEntries((config.endpoints as { name: string }[]).map((e) => [e.name, e]));
    expect(byName.azure_openai_backup).toMatchObject({ provider: 'azure', baseUrl: 'https://your-resource.openai.azure.com', apiVersion: '2024-02-15-preview', apiKey: '${AZURE_OPENAI_API_KEY}' });
    expect(byName.claude_backup).toMatchObject({ provider: 'anthropic', baseUrl: 'https://api.anthropic.com/v1' });
    expect(byName.openai_primary).toMatchObject({ timeouts: { attemptMs: 30_000 } });
    expect(config.models.default).toContainEqual({ endpoint: 'azure_openai_backup', model: 'your-deployment', priority: 2, weight: 5 });
    expect(config.models.default).toContainEqual({ endpoint: 'openai_primary', model: 'gpt-3.5-turbo', priority: 1, weight: 10 });
    expect(config.plugins).toContainEqual({ use: '@switchyard/plugin-retry', options: { maxAttemptsPerCandidate: 3 } });
    expect(config.plugins).toContainEqual({ use: '@switchyard/plugin-router', options: { strategy: 'priority-weighted' } });
    expect(notes).toContain('note: endpoints[2]: names no model: the deployment\'s model is ${CLAUDE_BACKUP_MODEL}');
    expect(notes).toContain('endpoints[0].health_check_payload');
  });

  it("translates the FaultTolerantAIClient design: primary and backups, the cache of last resort, the breaker and the three-level backoff", async () => {
    const { config } = await importAndValidate('fault-tolerant-ai-client.yaml');
    expect(config.endpoints.map((e: { name: string }) => e.name)).toEqual(['deepseek_pro', 'deepseek_flash', 'local_openclaw_qwen']);
    expect(config.endpoints[0]).toMatchObject({ provider: 'deepseek', baseUrl: 'https://api.deepseek.com', apiKey: '${DEEPSEEK_API_KEY}' });
    expect(config.endpoints[2]).not.toHaveProperty('apiKey');
    expect(config.models.default.map((d: { model: string; priority: number }) => [d.model, d.priority])).toEqual([['deepseek-v4-pro', 1], ['deepseek-v4-flash', 2], ['qwen2.5:7b', 3]]);
    expect(config.plugins).toEqual([
      '@switchyard/plugin-cache',
      { use: '@switchyard/plugin-circuit-breaker', options: { consecutiveFailures: 5, baseOpenMs: 300_000, maxOpenMs: 300_000 } },
      { use: '@switchyard/plugin-retry', options: { maxAttemptsPerCandidate: 3, backoff: { probeMinMs: 0, probeMaxMs: 500, baseMs: 1000, capMs: 30_000 } } },
    ]);
  });

  it("translates the gateway design's model mapping, giving vendors named without a URL their default URL and ${VENDOR_API_KEY}", async () => {
    const { config, notes } = await importAndValidate('gateway-model-mapping.yaml');
    expect(config.endpoints).toEqual([
      { name: 'openai', provider: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: '${OPENAI_API_KEY}' },
      { name: 'deepseek', provider: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', apiKey: '${DEEPSEEK_API_KEY}' },
    ]);
    expect(config.models['gpt-4']).toEqual([
      { endpoint: 'openai', model: 'gpt-4-0125-preview', priority: 1, capabilities: ['json', 'tools', 'vision'] },
      { endpoint: 'deepseek', model: 'deepseek-chat', priority: 2, capabilities: ['json', 'tools', 'vision'] },
    ]);
    expect(notes).toContain('model_mapping.gpt-4.providers[1].cost_weight');
  });

  it("translates LiteLLM's config.yaml (model_list, router_settings, fallbacks) and names on stderr what it could not", async () => {
    const { config, notes } = await importAndValidate('litellm-config.yaml');
    expect(config.endpoints).toContainEqual({ name: 'azure', provider: 'azure', baseUrl: '${AZURE_API_BASE}', apiKey: '${AZURE_API_KEY}', apiVersion: '2024-10-21', timeouts: { attemptMs: 30_000 } });
    expect(config.endpoints).toContainEqual({ name: 'ollama', provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', timeouts: { attemptMs: 30_000 } });
    // gpt-4o's own deployments, then claude-sonnet's after them (the fallback).
    expect(config.models['gpt-4o']).toEqual([
      { endpoint: 'openai', model: 'gpt-4o' },
      { endpoint: 'azure', model: 'gpt-4o-eu', weight: 2 },
      { endpoint: 'anthropic', model: 'claude-sonnet-4-5', priority: 1 },
    ]);
    expect(config.models['claude-sonnet']).toEqual([{ endpoint: 'anthropic', model: 'claude-sonnet-4-5' }, { endpoint: 'ollama', model: 'llama3.1', priority: 1 }]);
    expect(config.models).not.toHaveProperty('titan');
    expect(config.plugins).toEqual([
      { use: '@switchyard/plugin-retry', options: { maxAttemptsPerCandidate: 3 } },
      { use: '@switchyard/plugin-circuit-breaker', options: { consecutiveFailures: 4, baseOpenMs: 30_000, maxOpenMs: 300_000 } },
      { use: '@switchyard/plugin-router', options: { strategy: 'least-latency' } },
    ]);
    for (const untranslated of ['model_list[0].litellm_params.rpm', 'LiteLLM provider "bedrock" has no Switchyard provider', 'router_settings.redis_host', 'litellm_settings.success_callback', 'general_settings']) expect(notes).toContain(untranslated);
  });

  it('writes to --out, and refuses a file it does not know with a coded error', async () => {
    const out = await configFile('');
    const c = capture({}, fixtures);
    expect(await main(['import', 'gateway-model-mapping.yaml', '--out', out], c.io)).toBe(0);
    expect(c.out).toBe('');
    expect(await readFile(out, 'utf8')).toContain('model: gpt-4-0125-preview');
    const unknown = await configFile('hello: world\n');
    const bad = capture({});
    expect(await main(['import', unknown], bad.io)).toBe(1);
    expect(bad.err).toMatch(/not a config import knows.*\(SWITCHYARD_ERR_CONFIG\)/s);
  });
});
