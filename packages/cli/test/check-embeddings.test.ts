/** Issue 38: `check` probes an embeddings deployment with an embeddings call, not a chat completion. */
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback } from '../../core/test/support/loopback.js';
import { main } from '../src/index.js';
import { capture, cleanUp, configFile, keepVendors } from './support.js';

afterEach(cleanUp);

describe('check on an embeddings deployment', () => {
  it('sends /embeddings to a deployment with the embeddings capability and passes; chat deployments still complete', async () => {
    // A real vendor answers a chat completion to an embedding model with 404 "not a chat model".
    const vendor = await startLoopback((req, res) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'text-embedding-3-small' }, { id: 'gpt-4o-mini' }] }));
      } else if (req.url === '/v1/embeddings') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 1, total_tokens: 1 } }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'This is not a chat model and thus not supported in the v1/chat/completions endpoint.', type: 'invalid_request_error', code: null } }));
      }
    });
    keepVendors(vendor);
    const file = await configFile(
      `endpoints: [{ name: up, provider: openai, baseUrl: "${vendor.url}", apiKey: k }]\nmodels:\n  embed: [{ endpoint: up, model: text-embedding-3-small, capabilities: [embeddings] }]\n`,
    );
    const c = capture({});
    const code = await main(['check', '--config', file, '--timeout', '2000'], c.io);
    expect(c.out).toMatch(/up\/text-embedding-3-small\s+ok/);
    expect(code).toBe(0);
    const paths = vendor.requests.map((r) => r.path);
    expect(paths).toContain('/v1/embeddings');
    expect(paths).not.toContain('/v1/chat/completions');
  });
});
