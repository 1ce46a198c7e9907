import http, { type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayResponse } from '../src/gateway-response.js';
import { answers, chatBody, GATEWAY_KEY, pipelineFor, startGateway, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

/** Every `x-request-id` line of a reply's head, as it came off the wire. */
function requestIds(rawHeaders: string[]): string[] {
  const ids: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'x-request-id') ids.push(rawHeaders[i + 1]);
  return ids;
}

function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; ids: string[]; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ids: requestIds(res.rawHeaders), headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('GatewayResponse: the request id goes with whatever head is written', () => {
  const heads: Array<[string, (res: GatewayResponse) => void, string[]]> = [
    ['headers as an object', (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), ['req_1']],
    ['a status message and headers as a flat list', (res) => res.writeHead(200, 'Fine', ['content-type', 'text/plain']).end('ok'), ['req_1']],
    ['no headers of its own', (res) => res.writeHead(204).end(), ['req_1']],
    ['a head Node writes at end()', (res) => res.end('ok'), ['req_1']],
    ['headers set before writeHead', (res) => { res.setHeader('cache-control', 'no-store'); res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); }, ['req_1']],
    ['an id set on the response by its writer', (res) => { res.setHeader('x-request-id', 'mine'); res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); }, ['mine']],
    ['an id of its own in a flat list (a vendor\'s, passed on)', (res) => res.writeHead(502, ['X-Request-Id', 'vendor-9']).end(), ['vendor-9']],
    ['an id of its own in an object', (res) => res.writeHead(502, { 'x-request-id': 'vendor-9' } satisfies OutgoingHttpHeaders).end(), ['vendor-9']],
    ['an id of its own in an object, spelled otherwise', (res) => res.writeHead(502, { 'Content-Type': 'text/plain', 'X-Request-Id': 'vendor-9' }).end(), ['vendor-9']],
  ];

  it.each(heads)('%s: one x-request-id', async (_name, reply, expected) => {
    const server = http.createServer({ ServerResponse: GatewayResponse }, (_req, res) => {
      res.requestId = 'req_1';
      reply(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { ids } = await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(ids).toEqual(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('writes the head as given when no request id is set', async () => {
    const server = http.createServer({ ServerResponse: GatewayResponse }, (_req, res) => res.writeHead(200, ['content-type', 'text/plain'] satisfies OutgoingHttpHeader[]).end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { ids, headers } = await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(ids).toEqual([]);
      expect(headers['content-type']).toBe('text/plain');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the gateway: every reply names its request once', () => {
  it('a stream, an answer, an error, a refusal, health, readiness, a preflight and a missing path', async () => {
    const primary = await vendor(answers(['Hello', ' there']));
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }), { server: { cors: ['http://app.local:3000'] } });
    const auth = { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' };
    const replies = {
      stream: await call(`${origin}/v1/chat/completions`, { method: 'POST', headers: auth, body: chatBody({ stream: true }) }),
      answer: await call(`${origin}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'x-request-id': 'client-7' }, body: chatBody() }),
      badJson: await call(`${origin}/v1/chat/completions`, { method: 'POST', headers: auth, body: '{not json' }),
      noKey: await call(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody() }),
      health: await call(`${origin}/health`),
      ready: await call(`${origin}/ready`),
      preflight: await call(`${origin}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'http://app.local:3000', 'access-control-request-method': 'POST' } }),
      missing: await call(`${origin}/v1/nothing-here`, { method: 'POST', headers: auth, body: '{}' }),
    };
    expect(Object.fromEntries(Object.entries(replies).map(([name, r]) => [name, r.status]))).toEqual({ stream: 200, answer: 200, badJson: 400, noKey: 401, health: 200, ready: 200, preflight: 204, missing: 404 });
    for (const [name, reply] of Object.entries(replies)) {
      expect(reply.ids, name).toHaveLength(1);
      if (name !== 'answer') expect(reply.ids[0], name).toMatch(/^req_[0-9a-f]{32}$/);
    }
    expect(replies.answer.ids).toEqual(['client-7']);
    expect(replies.stream.text).toContain('data: [DONE]');
    expect(replies.stream.headers['x-switchyard-endpoint']).toBe('primary');
    expect(replies.preflight.headers['access-control-allow-origin']).toBe('http://app.local:3000');
  });
});
