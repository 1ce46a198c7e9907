/**
 * Azure AI Foundry's model inference endpoint against a loopback fake that checks what Foundry
 * checks (the `/models/chat/completions` route, `api-version`, the `api-key` header, the
 * deployment in the body) and answers in Foundry's documented shapes (Azure AI Model Inference
 * API, 2024-05-01-preview: an OpenAI-shaped chat completion; throttling as `429` with
 * `{"error":{"code":"RateLimitReached"}}` and `retry-after`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { azureFoundryProvider, checkAzureFoundryEndpoint } from './index.js';

const KEY = 'foundry-resource-key-0123456789abcdef';
let server: Loopback | undefined;
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await server?.close();
  pipeline = server = undefined;
});

/** A fake Foundry resource: the inference route, its version and key, or the refusals Foundry answers. */
async function fakeFoundry(throttle = false): Promise<Loopback> {
  return startLoopback((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    };
    if (req.headers['api-key'] !== KEY) return send(401, { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } });
    if (url.pathname !== '/models/chat/completions') return send(404, { error: { code: '404', message: 'Resource not found' } });
    if (!url.searchParams.get('api-version')) return send(400, { error: { code: 'MissingApiVersionParameter', message: "The api-version query parameter (?api-version=) is required for all requests." } });
    if (throttle) return send(429, { error: { code: 'RateLimitReached', message: 'Rate limit of 1 per 60s exceeded for UserByModelByMinute. Please wait 7 seconds before retrying.' } }, { 'retry-after': '7' });
    const asked = JSON.parse(body) as { model: string };
    send(200, { id: 'f1a2', object: 'chat.completion', created: 1_731_000_000, model: asked.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Bonjour', tool_calls: null }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
  });
}

function foundryPipeline(baseUrl: string, apiVersion?: string): Pipeline {
  pipeline = createPipeline({
    endpoints: [{ name: 'foundry', provider: 'azure-foundry', baseUrl, apiKey: KEY, ...(apiVersion ? { apiVersion } : {}) }],
    models: { chat: [{ endpoint: 'foundry', model: 'Mistral-Large-2411' }] },
    providers: [azureFoundryProvider],
  });
  return pipeline;
}

describe('Azure AI Foundry model inference endpoint (provider azure-foundry)', () => {
  it('posts to {root}/chat/completions?api-version with the api-key header and the deployment as model', async () => {
    server = await fakeFoundry();
    const root = server.url.replace(/\/v1$/, '/models');
    const answer = await foundryPipeline(root).chat({ model: 'chat', messages: [{ role: 'user', content: 'Say hello in French' }] });
    expect(answer.choices[0]!.message.content).toBe('Bonjour');
    expect(answer.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3 });
    const seen = server.requests[0]!;
    expect(seen.path).toBe('/models/chat/completions?api-version=2024-05-01-preview');
    expect(seen.headers['api-key']).toBe(KEY);
    expect(seen.headers.authorization).toBeUndefined();
    expect(JSON.parse(seen.body)).toMatchObject({ model: 'Mistral-Large-2411', messages: [{ role: 'user', content: 'Say hello in French' }] });
  });

  it('takes the endpoint apiVersion; a 429 RateLimitReached is a rate limit with its retry-after', async () => {
    server = await fakeFoundry(true);
    const error = await foundryPipeline(server.url.replace(/\/v1$/, '/models'), '2025-04-01').chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(server.requests[0]!.path).toBe('/models/chat/completions?api-version=2025-04-01');
    expect(error).toMatchObject({ kind: 'all-candidates-failed', cause: { kind: 'rate-limit', retryAfterMs: 7_000 } });
  });

  it('validate names the URL mistakes: an Azure OpenAI resource, an operation URL, a resource without /models', () => {
    expect(checkAzureFoundryEndpoint({ name: 'f', provider: 'azure-foundry', baseUrl: 'https://res.services.ai.azure.com/models' })).toBeUndefined();
    expect(checkAzureFoundryEndpoint({ name: 'f', provider: 'azure-foundry', baseUrl: 'https://llama-3-70b.eastus2.models.ai.azure.com' })).toBeUndefined();
    expect(checkAzureFoundryEndpoint({ name: 'f', provider: 'azure-foundry', baseUrl: 'https://res.openai.azure.com' })).toMatch(/use provider "azure"/);
    expect(checkAzureFoundryEndpoint({ name: 'f', provider: 'azure-foundry', baseUrl: 'https://res.services.ai.azure.com/models/chat/completions?api-version=2024-05-01-preview' })).toMatch(/"https:\/\/res.services.ai.azure.com\/models"/);
    expect(checkAzureFoundryEndpoint({ name: 'f', provider: 'azure-foundry', baseUrl: 'https://res.services.ai.azure.com' })).toMatch(/model inference root is "https:\/\/res.services.ai.azure.com\/models"/);
  });
});
