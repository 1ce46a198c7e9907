import { createPipeline, type DeploymentConfig, type EndpointConfig } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { router } from '../src/index.js';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** An upstream that rejects prompts longer than `window` characters the way OpenAI does. */
async function upstream(window: number): Promise<Loopback> {
  const server = await startLoopback((_req, res, body) => {
    const { model, messages } = JSON.parse(body);
    const size = JSON.stringify(messages).length;
    if (size > window) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `This model's maximum context length is ${window} tokens.`, code: 'context_length_exceeded' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(`answered by ${model}`, model)));
  });
  servers.push(server);
  return server;
}

async function setup(deployments: DeploymentConfig[], servers: Record<string, Loopback>, endpointExtras: Partial<EndpointConfig> = {}) {
  const endpoints: EndpointConfig[] = Object.entries(servers).map(([name, s]) => ({ name, provider: 'test', baseUrl: s.url, ...endpointExtras }));
  return createPipeline({ endpoints, models: { chat: deployments }, providers: [testProvider], plugins: [router()] });
}

// The prompt is small enough for the router's estimate to keep the small model (its window is
// configured generously), so the vendor is the one that says it is too long.
const long = [{ role: 'user' as const, content: 'x'.repeat(500) }];

describe('router: context-length reroute (loopback)', () => {
  it('sends the request exactly once to the small model, then answers from the larger one', async () => {
    const small = await upstream(100);
    const large = await upstream(10_000);
    const pipeline = await setup(
      [
        { endpoint: 'small', model: 'small-model', priority: 0, contextWindow: 4_000 },
        { endpoint: 'other', model: 'same-size', priority: 1, contextWindow: 4_000 },
        { endpoint: 'large', model: 'large-model', priority: 2, contextWindow: 128_000 },
      ],
      { small, other: small, large },
    );
    const response = await pipeline.chat({ model: 'chat', messages: long });
    expect(response.choices[0].message.content).toBe('answered by large-model');
    expect(response.switchyard).toMatchObject({ endpoint: 'large', attempts: 2 });
    // One request to the small upstream: the same-size deployment was skipped, not tried.
    expect(small.requests).toHaveLength(1);
    expect(large.requests).toHaveLength(1);
    await pipeline.close();
  });

  it('never tries another key of the failed deployment', async () => {
    const small = await upstream(100);
    const large = await upstream(10_000);
    const pipeline = createPipeline({
      endpoints: [
        { name: 'small', provider: 'test', baseUrl: small.url, apiKeys: ['k1', 'k2'] },
        { name: 'large', provider: 'test', baseUrl: large.url },
      ],
      models: { chat: [{ endpoint: 'small', model: 's', contextWindow: 4_000 }, { endpoint: 'large', model: 'l', priority: 1, contextWindow: 32_000 }] },
      providers: [testProvider],
      plugins: [router()],
    });
    const response = await pipeline.chat({ model: 'chat', messages: long });
    expect(response.switchyard?.endpoint).toBe('large');
    expect(small.requests).toHaveLength(1);
    await pipeline.close();
  });

  it('without a larger deployment, fails once with the vendor reason', async () => {
    const small = await upstream(100);
    const other = await upstream(100);
    const pipeline = await setup(
      [
        { endpoint: 'small', model: 's', contextWindow: 4_000 },
        { endpoint: 'other', model: 'o', priority: 1, contextWindow: 4_000 },
      ],
      { small, other },
    );
    const error = await pipeline.chat({ model: 'chat', messages: long }).catch((e) => e);
    expect(error).toMatchObject({ kind: 'context-length', status: 400 });
    expect(error.message).toContain('maximum context length');
    expect(small.requests.length + other.requests.length).toBe(1);
    await pipeline.close();
  });

  it('with an unconfigured window on the failed model, goes to a different model whose window holds the estimate', async () => {
    const small = await upstream(100);
    const large = await upstream(10_000);
    const pipeline = await setup(
      [
        { endpoint: 'small', model: 's' },
        { endpoint: 'large', model: 'l', priority: 1, contextWindow: 200_000 },
      ],
      { small, large },
    );
    const response = await pipeline.chat({ model: 'chat', messages: long });
    expect(response.switchyard?.endpoint).toBe('large');
    expect(small.requests).toHaveLength(1);
    await pipeline.close();
  });
});
