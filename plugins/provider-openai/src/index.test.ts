import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createPipeline } from '@switchyard/core';
import { createPipelineFromConfig, parseConfig } from '@switchyard/core/config';
import { isProvider } from '@switchyard/core/internal';
import { loadProviders } from '@switchyard/core/internal';
import providersDefault, { azureFoundryProvider, azureProvider, openaiCompatibleProvider, openaiProvider, providers, vendorPresetProviders } from './index.js';
import { fixtureText, reframeChunks, startVendor } from './test-support/harness.js';

describe('package exports', () => {
  it('exports the family and the vendor presets, as `providers` and as the default export', () => {
    expect(providers).toEqual([openaiProvider, azureProvider, azureFoundryProvider, openaiCompatibleProvider, ...vendorPresetProviders]);
    expect(providersDefault).toBe(providers);
    expect(providers.map((p) => [p.id, isProvider(p), p.specificationVersion])).toEqual([
      ['openai', true, 'v1'],
      ['azure', true, 'v1'],
      ['azure-foundry', true, 'v1'],
      ['openai-compatible', true, 'v1'],
      ['dashscope', true, 'v1'],
      ['zhipu', true, 'v1'],
      ['moonshot', true, 'v1'],
      ['qianfan', true, 'v1'],
      ['deepseek', true, 'v1'],
    ]);
  });

  it('fails over from an OpenAI key with no quota to an Azure deployment, mid-pipeline', async () => {
    const openai = await startVendor({ status: 429, body: fixtureText('openai-error.1.json') });
    const azure = await startVendor({ body: reframeChunks('azure-model-router.1.chunks.txt') });
    const pipeline = createPipeline({
      endpoints: [
        { name: 'oai', provider: 'openai', baseUrl: openai.url, apiKey: 'sk-aaaaaaaaaaaaaaaaaaaa' },
        { name: 'az', provider: 'azure', baseUrl: azure.url.replace(/\/v1$/, ''), apiKey: 'azure-key-123456' },
      ],
      models: { chat: [{ endpoint: 'oai', model: 'gpt-4o-mini' }, { endpoint: 'az', model: 'router' }] },
      providers,
    });
    try {
      const res = await (await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'capital?' }] })).collect();
      expect(res.switchyard).toMatchObject({ endpoint: 'az', provider: 'azure' });
      expect(res.model).toBe('gpt-5-nano-2025-08-07');
      expect(openai.requests).toHaveLength(1);
      expect(azure.requests[0].headers['api-key']).toBe('azure-key-123456');
    } finally {
      await pipeline.close();
      await openai.close();
      await azure.close();
    }
  });
});

describe('config loading', () => {
  it('the core loader finds these providers by their first-party ids', async () => {
    const asked: string[] = [];
    const importer = async (specifier: string) => {
      asked.push(specifier);
      return (await import('./index.js')) as Record<string, unknown>;
    };
    const found = await loadProviders({ endpoints: [{ name: 'a', provider: 'azure', baseUrl: 'https://x.openai.azure.com' }] }, importer);
    expect(asked).toEqual(['@switchyard/provider-openai']);
    expect(found.map((p) => p.id).sort()).toEqual(['azure', 'azure-foundry', 'dashscope', 'deepseek', 'moonshot', 'openai', 'openai-compatible', 'qianfan', 'zhipu']);
  });

  it("the README's YAML example loads and routes each endpoint to the right codec and URL", async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const config = parseConfig(yaml, { OPENAI_API_KEY: 'sk-one', AZURE_OPENAI_KEY: 'az-key', DEEPSEEK_API_KEY: 'ds-key' });
    const pipeline = await createPipelineFromConfig(config, { importer: async () => (await import('./index.js')) as Record<string, unknown> });
    try {
      const candidates = pipeline.candidatesFor('chat');
      const built = candidates.map((c) => {
        const provider = pipeline.providers.get(c.provider)!;
        const req = provider.buildRequest({ model: 'chat', messages: [{ role: 'user', content: 'x' }] }, c, { stream: false });
        return [c.endpoint.name, c.provider, c.endpoint.baseUrl ?? provider.defaultBaseUrl, req.path];
      });
      expect(built).toEqual([
        ['openai', 'openai', 'https://api.openai.com/v1', '/chat/completions'],
        ['azure-east', 'azure', 'https://my-resource.openai.azure.com', '/openai/deployments/my-gpt-4o-deployment/chat/completions?api-version=2024-10-21'],
        ['deepseek', 'openai-compatible', 'https://api.deepseek.com/v1', '/chat/completions'],
        ['ollama', 'openai-compatible', 'http://127.0.0.1:11434/v1', '/chat/completions'],
      ]);
      expect(candidates[0].endpoint.headers).toEqual({ 'OpenAI-Project': 'proj_123' });
    } finally {
      await pipeline.close();
    }
  });
});
