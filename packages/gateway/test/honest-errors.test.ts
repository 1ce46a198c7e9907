/** Honest errors: x-should-retry on final errors, the vendor's param and type, no upstream names by default. */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { chatBody, fails, GATEWAY_KEY, pipelineFor, raw, startGateway, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

describe('honest errors to gateway clients', () => {
  it('a final failure says x-should-retry: false, so an SDK with retries on asks once', async () => {
    const down = await vendor(fails(500, 'boom'));
    const gw = await startGateway(pipelineFor({ vendors: { 'vendor-a': down } }));
    const reply = await raw(gw.origin, '/v1/chat/completions', { body: chatBody() });
    expect(reply.status).toBe(503);
    expect(reply.headers.get('x-should-retry')).toBe('false');
    expect(reply.headers.get('retry-after')).toBeNull();
    down.requests.length = 0;
    const sdk = new OpenAI({ baseURL: gw.baseURL, apiKey: GATEWAY_KEY, maxRetries: 2 });
    await expect(sdk.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 503 });
    // Without the header the SDK would have sent this request three times.
    expect(down.requests).toHaveLength(1);
  });

  it('a failure the client may retry later carries retry-after instead', async () => {
    const limited = await vendor(fails(429, 'slow down', { code: 'rate_limit_exceeded', type: 'requests', headers: { 'retry-after': '30' } }));
    const gw = await startGateway(pipelineFor({ vendors: { a: limited } }));
    const reply = await raw(gw.origin, '/v1/chat/completions', { body: chatBody() });
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBeTruthy();
    expect(reply.headers.get('x-should-retry')).toBeNull();
  });

  it("the vendor's param, type and code reach the client; the message does not name the vendor", async () => {
    const strict = await vendor((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } }));
    });
    const gw = await startGateway(pipelineFor({ vendors: { 'secret-vendor': strict } }));
    const reply = await raw(gw.origin, '/v1/chat/completions', { body: chatBody() });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toEqual({ message: "Unsupported parameter: 'max_tokens' is not supported with this model.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' });
    expect(reply.headers.get('x-should-retry')).toBe('false');
  });

  it('a failure everywhere names no endpoint or deployment unless server.exposeUpstream is true', async () => {
    const a = await vendor(fails(503, 'overloaded'));
    const b = await vendor(fails(500, 'boom'));
    const hidden = await startGateway(pipelineFor({ vendors: { 'acme-primary': a, 'acme-backup': b } }));
    const quiet = await raw(hidden.origin, '/v1/chat/completions', { body: chatBody() });
    expect(quiet.json.error.message).toMatch(/failed for model "chat": overloaded 503; server 500$/);
    expect(quiet.text).not.toMatch(/acme|openai/);
    const open = await startGateway(pipelineFor({ vendors: { 'acme-primary': a, 'acme-backup': b } }), { server: { exposeUpstream: true } });
    const loud = await raw(open.origin, '/v1/chat/completions', { body: chatBody() });
    expect(loud.json.error.message).toContain('acme-primary/acme-primary-model: overloaded 503');
  });

  it('an upstream key failure does not name the endpoint by default', async () => {
    const refused = await vendor(fails(401, 'Incorrect API key provided', { code: 'invalid_api_key', type: 'invalid_request_error' }));
    const gw = await startGateway(pipelineFor({ vendors: { 'acme-eu': refused } }));
    const reply = await raw(gw.origin, '/v1/chat/completions', { body: chatBody() });
    expect(reply.status).toBe(502);
    expect(reply.text).not.toContain('acme-eu');
  });
});
