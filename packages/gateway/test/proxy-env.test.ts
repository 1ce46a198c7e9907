import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { parseConfig } from '@switchyard/core/config';
import { createGateway } from '../src/index.js';
import { completion, startLoopback, type Loopback } from './support/harness.js';

const closers: (() => Promise<void>)[] = [];
const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };

afterEach(async () => {
  process.env.HTTP_PROXY = saved.HTTP_PROXY;
  process.env.NO_PROXY = saved.NO_PROXY;
  if (saved.HTTP_PROXY === undefined) delete process.env.HTTP_PROXY;
  if (saved.NO_PROXY === undefined) delete process.env.NO_PROXY;
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function saying(text: string): Promise<Loopback> {
  const server = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(text)));
  });
  closers.push(() => server.close());
  return server;
}

/** A forward proxy that tunnels CONNECT requests (what undici's proxy agent sends) and records them. */
async function tunnelProxy(): Promise<{ url: string; tunnels: string[] }> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: net.Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels };
}

async function askThroughGateway(vendorUrl: string): Promise<string | null> {
  const config = parseConfig(`endpoints: [{ name: up, provider: openai, baseUrl: "${vendorUrl}" }]\nmodels: { chat: [{ endpoint: up, model: m }] }\n`, {});
  const gateway = createGateway({ config, server: { port: 0 }, pipelineOptions: { importer: (s) => import(s) } });
  closers.push(() => gateway.close());
  const client = new OpenAI({ baseURL: (await gateway.listen()).url, apiKey: 'unused', maxRetries: 0 });
  return (await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content;
}

describe('proxy settings from the environment', () => {
  it('sends upstream calls through HTTP_PROXY', async () => {
    const vendor = await saying('through the tunnel');
    const proxy = await tunnelProxy();
    process.env.HTTP_PROXY = proxy.url;
    expect(await askThroughGateway(vendor.url)).toBe('through the tunnel');
    expect(proxy.tunnels).toEqual([new URL(vendor.url).host]);
  });

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    const vendor = await saying('direct');
    const proxy = await tunnelProxy();
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = '127.0.0.1';
    expect(await askThroughGateway(vendor.url)).toBe('direct');
    expect(proxy.tunnels).toEqual([]);
  });
});
