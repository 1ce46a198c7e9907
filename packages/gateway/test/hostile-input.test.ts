import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import OpenAI from 'openai';
import { answers, chatBody, pipelineFor, raw, startGateway, stopAll, vendor, type Harness, type Loopback } from './support/harness.js';

let legit: Loopback;
let evil: Loopback;
let h: Harness;

beforeEach(async () => {
  legit = await vendor(answers(['fine']));
  evil = await vendor(answers(['pwned']));
  h = await startGateway(pipelineFor({ vendors: { legit } }), { server: { maxBodyBytes: 64 * 1024 } });
});

afterEach(async () => {
  // Whatever was thrown at it, the gateway still serves.
  const ok = await h.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'still there?' }] });
  expect(ok.choices[0].message.content).toBe('fine');
  expect(evil.requests).toHaveLength(0);
  await stopAll();
});

function expectOpenAIError(json: any, code: string | null, param?: string | null) {
  expect(json).toEqual({ error: { message: expect.any(String), type: expect.any(String), param: param === undefined ? expect.anything() : param, code } });
  expect(json.error.message.length).toBeGreaterThan(5);
}

describe('hostile input', () => {
  it('a body that is not JSON gets 400 invalid_json', async () => {
    const res = await raw(h.origin, '/v1/chat/completions', { body: '{"model": "chat", "messages": [' });
    expect(res.status).toBe(400);
    expectOpenAIError(res.json, 'invalid_json', null);
  });

  it('a body over the limit gets 413, declared or streamed', async () => {
    const huge = JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] });
    const err = await h.client.chat.completions.create(JSON.parse(huge)).catch((e) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err.status).toBe(413);
    expect(err.code).toBe('request_too_large');
    // Without a content-length the limit is enforced while reading.
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(8 * 1024)));
        controller.close();
      },
    });
    const res = await fetch(`${h.baseURL}/chat/completions`, { method: 'POST', body: chunked, duplex: 'half', headers: { authorization: `Bearer ${(h.client as OpenAI).apiKey}` } } as RequestInit);
    expect(res.status).toBe(413);
    expectOpenAIError(await res.json(), 'request_too_large', null);
    expect(legit.requests).toHaveLength(0);
  });

  it('missing messages gets 400 naming the field', async () => {
    const err = await h.client.chat.completions.create({ model: 'chat' } as never).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages');
    expect(err.code).toBe('invalid_request');
    const res = await raw(h.origin, '/v1/chat/completions', { body: '[1,2]' });
    expect(res.status).toBe(400);
    expectOpenAIError(res.json, 'invalid_request');
    const stream = await raw(h.origin, '/v1/chat/completions', { body: chatBody({ stream: 'yes' }) });
    expect(stream.status).toBe(400);
    expectOpenAIError(stream.json, 'invalid_request', 'stream');
  });

  it('an unknown model gets 404 model_not_found', async () => {
    const err = await h.client.chat.completions.create({ model: 'gpt-nope', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.code).toBe('model_not_found');
    expect(err.param).toBe('model');
    const retrieve = await h.client.models.retrieve('gpt-nope').catch((e) => e);
    expect(retrieve.status).toBe(404);
  });

  it('a wrong or missing gateway key gets 401 and nothing reaches a vendor', async () => {
    const wrong = new OpenAI({ baseURL: h.baseURL, apiKey: 'gw-key-test-2', maxRetries: 0 });
    const err = await wrong.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    expect(err.status).toBe(401);
    expect(err.code).toBe('invalid_api_key');
    for (const authorization of ['', 'Bearer', 'Basic Z3ctdGVzdA==', 'Bearer gw-key-test-1 extra', 'bearer  ']) {
      const res = await raw(h.origin, '/v1/chat/completions', { body: chatBody(), headers: { authorization } });
      expect(res.status, authorization).toBe(401);
      expectOpenAIError(res.json, 'invalid_api_key', null);
    }
    expect((await raw(h.origin, '/v1/models', { method: 'GET', headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect(legit.requests).toHaveLength(0);
  });

  it('no header or body field can choose the upstream host (no SSRF)', async () => {
    const target = evil.url;
    const res = await raw(h.origin, '/v1/chat/completions', {
      headers: { host: new URL(target).host, 'x-forwarded-host': new URL(target).host, 'x-switchyard-endpoint': target, 'x-base-url': target, forwarded: `host=${new URL(target).host}`, 'openai-base-url': target },
      body: chatBody({ base_url: target, baseUrl: target, api_base: target, endpoint: target, url: target, switchyard: { tags: { baseUrl: target } } }),
    });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe('fine');
    expect(res.headers.get('x-switchyard-endpoint')).toBe('legit');
    expect(legit.requests).toHaveLength(1);
    // Our own hints are parsed strictly: an unknown one is refused, never ignored.
    const hinted = await raw(h.origin, '/v1/chat/completions', { body: chatBody({ switchyard: { endpoint: target } }) });
    expect(hinted.status).toBe(400);
    expectOpenAIError(hinted.json, 'invalid_request', 'switchyard');
    expect(legit.requests).toHaveLength(1);
  });

  it('client image URLs are never fetched by the gateway', async () => {
    const res = await raw(h.origin, '/v1/chat/completions', {
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: `${evil.url}/cat.png` } }] }] }),
    });
    expect(res.status).toBe(200);
    // Passed through to the (URL-accepting) vendor as data, never dereferenced here.
    expect(legit.requests[0].body).toContain(`${evil.url}/cat.png`);
  });

  it('unknown routes and wrong methods get OpenAI-style 404 and 405', async () => {
    const missing = await raw(h.origin, '/v1/completions', { body: '{}' });
    expect(missing.status).toBe(404);
    expectOpenAIError(missing.json, 'unknown_url', null);
    const wrong = await raw(h.origin, '/v1/chat/completions', { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});
