import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { type Transport } from '@switchyard/core';
import { createUndiciTransport, parseConfig } from '@switchyard/core/config';
import { createGateway } from '../src/index.js';
import { answers, sseBody, textChunks, GATEWAY_KEY, pipelineFor, startGateway, stopAll, vendor, VENDOR_KEY, type Handler } from './support/harness.js';

afterEach(stopAll);

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

/**
 * A vendor that counts requests it is still answering. Its latency (`delayMs` on a real socket)
 * is the load under test: it keeps requests in flight on the old pipeline across the swap.
 */
function counted(handler: Handler, delayMs: number) {
  const state = { open: 0 };
  const wrapped: Handler = async (req, res, body) => {
    state.open++;
    res.on('close', () => state.open--);
    await new Promise((r) => setTimeout(r, delayMs));
    await handler(req, res, body);
  };
  return { state, handler: wrapped };
}

describe('hot reload', () => {
  it('swaps the pipeline under load with no failed request; the old one closes after it drained', async () => {
    let releaseStream!: () => void;
    const streamGate = new Promise<void>((r) => (releaseStream = r));
    const old = counted(async (req, res, body) => {
      if (!JSON.parse(body).stream) return answers(['old'])(req, res, body);
      // A stream that is still running on the old pipeline when the reload happens.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody([textChunks(['old '], false)[0]], false));
      await streamGate;
      res.end(sseBody(textChunks(['stream'])));
    }, 15);
    const oldVendor = await vendor(old.handler);
    const newVendor = await vendor(answers(['new']));
    let openAtClose = -1;
    const oldPipeline = pipelineFor({ vendors: { a: oldVendor } });
    oldPipeline.events.once('pipeline:close', () => (openAtClose = old.state.open));
    const { client, gateway } = await startGateway(oldPipeline);
    const longStream = await client.chat.completions.create({ ...ask, stream: true });

    const results: string[] = [];
    let reloaded = false;
    const worker = async () => {
      for (let i = 0; i < 8; i++) {
        const r = await client.chat.completions.create(ask);
        results.push(r.choices[0].message.content!);
        if (results.length === 16 && !reloaded) {
          reloaded = true;
          gateway.reload(pipelineFor({ vendors: { b: newVendor } }));
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));

    expect(results).toHaveLength(48);
    expect(results.filter((r) => r !== 'old' && r !== 'new')).toEqual([]);
    expect(results.slice(-20).every((r) => r === 'new')).toBe(true);
    expect(gateway.pipeline?.endpoints[0].name).toBe('b');
    // The old pipeline stays open while its stream runs.
    expect(gateway.inFlight).toBe(1);
    expect(openAtClose).toBe(-1);
    releaseStream();
    let streamed = '';
    for await (const c of longStream) streamed += c.choices[0]?.delta.content ?? '';
    expect(streamed).toBe('old stream');
    await expect.poll(() => openAtClose).toBe(0);
  });

  it('rotates gateway keys on reload', async () => {
    const up = await vendor(answers(['ok']));
    const { gateway, baseURL, client } = await startGateway(pipelineFor({ vendors: { up } }));
    gateway.reload(pipelineFor({ vendors: { up } }), { apiKeys: ['gw-rotated', ''] });
    expect((await client.chat.completions.create(ask).catch((e) => e)).status).toBe(401);
    const rotated = new OpenAI({ baseURL, apiKey: 'gw-rotated', maxRetries: 0 });
    expect((await rotated.chat.completions.create(ask)).choices[0].message.content).toBe('ok');
  });
});

/** One request on a fresh connection, as a prober or a new client would open it. */
function onNewConnection(origin: string, method: string, path: string, body?: string): Promise<{ status: number; json: any; connection?: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(origin + path, { method, agent: false, headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text), connection: res.headers.connection, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('graceful shutdown', () => {
  it('finishes requests in flight; new connections get the probes (/health 200 draining, /ready 503) and 503 shutting_down; then closes', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const up = await vendor(async (req, res, body) => {
      await held;
      await answers(['finished'])(req, res, body);
    });
    let closed = false;
    const pipeline = pipelineFor({ vendors: { up } });
    pipeline.events.once('pipeline:close', () => (closed = true));
    const { client, gateway, origin } = await startGateway(pipeline);
    const inflight = client.chat.completions.create(ask);
    await expect.poll(() => gateway.inFlight).toBe(1);
    const closing = gateway.close();
    // Each call below opens a connection of its own (no agent, no keep-alive).
    expect(await onNewConnection(origin, 'GET', '/health')).toMatchObject({ status: 200, json: { status: 'draining' }, connection: 'close' });
    expect(await onNewConnection(origin, 'GET', '/ready')).toMatchObject({ status: 503, json: { status: 'draining' } });
    const late = await onNewConnection(origin, 'POST', '/v1/chat/completions', JSON.stringify(ask));
    expect(late).toMatchObject({ status: 503, retryAfter: '1', json: { error: { code: 'shutting_down' } } });
    expect(closed).toBe(false);
    release();
    expect((await inflight).choices[0].message.content).toBe('finished');
    await closing;
    expect(closed).toBe(true);
    // Closed: the listener is gone.
    await expect(onNewConnection(origin, 'GET', '/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('aborts what is still running when the grace period is over', async () => {
    let upstreamAborted!: () => void;
    const aborted = new Promise<void>((r) => (upstreamAborted = r));
    const stall = await vendor((_req, res) => void res.on('close', upstreamAborted));
    const { client, gateway } = await startGateway(pipelineFor({ vendors: { stall } }), { server: { shutdownGraceMs: 50 } });
    const stuck = client.chat.completions.create(ask).catch((e) => e);
    await expect.poll(() => gateway.inFlight).toBe(1);
    const started = Date.now();
    await gateway.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await aborted;
    expect(await stuck).toBeInstanceOf(Error);
  });
});

describe('binding and keys', () => {
  it('refuses to bind beyond loopback without a gateway key; empty keys do not count', async () => {
    const up = await vendor(answers(['ok']));
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'example.internal']) {
      expect(() => createGateway({ pipeline: pipelineFor({ vendors: { up } }), server: { host, apiKeys: ['', '  '] } }), host).toThrow(
        expect.objectContaining({ code: 'SWITCHYARD_ERR_CONFIG_UNSAFE_BIND', message: expect.stringContaining('without a gateway key') }),
      );
    }
    expect(() => createGateway({ pipeline: pipelineFor({ vendors: { up } }), server: { host: '0.0.0.0', apiKeys: [GATEWAY_KEY] } })).not.toThrow();
  });

  it('on loopback with only empty keys the gateway is open', async () => {
    const up = await vendor(answers(['open']));
    const { baseURL } = await startGateway(pipelineFor({ vendors: { up } }), { server: { apiKeys: [''] } });
    const anyone = new OpenAI({ baseURL, apiKey: 'whatever', maxRetries: 0 });
    expect((await anyone.chat.completions.create(ask)).choices[0].message.content).toBe('open');
  });
});

describe('a gateway built from a config', () => {
  const yaml = (url: string, extra = '') => `
server: { host: 127.0.0.1, port: 0, apiKeys: ["\${GW_KEY}"] }
endpoints:
  - { name: up, provider: openai, baseUrl: "${url}", apiKey: "\${UP_KEY}" }
models:
  chat: [{ endpoint: up, model: up-model }]
${extra}`;
  const importer = (specifier: string) => import(specifier);

  it('serves with the server section of the config', async () => {
    const up = await vendor(answers(['from config']));
    const config = parseConfig(yaml(up.url), { GW_KEY: 'gw-from-env', UP_KEY: VENDOR_KEY });
    const gateway = createGateway({ config, pipelineOptions: { importer } });
    const address = await gateway.listen();
    try {
      const client = new OpenAI({ baseURL: address.url, apiKey: 'gw-from-env', maxRetries: 0 });
      expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('from config');
      expect(up.requests[0].headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);
    } finally {
      await gateway.close();
    }
  });

  it('reports an unreadable upstream.ca before serving', async () => {
    const config = parseConfig(yaml('http://127.0.0.1:9/v1', 'upstream: { ca: ./no-such-ca.pem }'), { GW_KEY: 'k', UP_KEY: 'v' }, '/tmp/switchyard-test/switchyard.yaml');
    const gateway = createGateway({ config, pipelineOptions: { importer } });
    await expect(gateway.listen()).rejects.toMatchObject({ path: 'upstream.ca', message: expect.stringContaining('/tmp/switchyard-test/no-such-ca.pem') });
    await gateway.close();
  });
});
