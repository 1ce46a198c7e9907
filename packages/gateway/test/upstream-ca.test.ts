import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { parseConfig } from '@switchyard/core/config';
import { completion } from './support/harness.js';
import { createGateway, type Gateway } from '../src/index.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const cert = readFileSync(path.join(fixtures, 'loopback-cert.pem'), 'utf8');
const key = readFileSync(path.join(fixtures, 'loopback-key.pem'), 'utf8');
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function tlsVendor(): Promise<string> {
  const server = https.createServer({ cert, key }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion('over tls')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function gatewayFor(url: string, upstream: string): Promise<{ gateway: Gateway; client: OpenAI }> {
  const config = parseConfig(`
endpoints: [{ name: tls, provider: openai, baseUrl: "${url}" }]
models: { chat: [{ endpoint: tls, model: m }] }
${upstream}
`, {}, path.join(fixtures, 'switchyard.yaml'));
  const gateway = createGateway({ config, server: { port: 0 }, pipelineOptions: { importer: (s) => import(s) } });
  closers.push(() => gateway.close());
  const address = await gateway.listen();
  return { gateway, client: new OpenAI({ baseURL: address.url, apiKey: 'unused', maxRetries: 0 }) };
}

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('upstream.ca', () => {
  it('trusts a vendor behind a private CA given as a file next to the config', async () => {
    const { client } = await gatewayFor(await tlsVendor(), 'upstream: { ca: ./loopback-cert.pem }');
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('over tls');
  });

  it('accepts the CA as PEM text', async () => {
    const { client } = await gatewayFor(await tlsVendor(), `upstream:\n  ca: |\n${cert.trimEnd().split('\n').map((l) => `    ${l}`).join('\n')}`);
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('over tls');
  });

  it('without it the vendor certificate is rejected', async () => {
    const { client } = await gatewayFor(await tlsVendor(), '');
    const err = await client.chat.completions.create(ask).catch((e) => e);
    expect(err.status).toBe(502);
    expect(err.code).toBe('all_candidates_failed');
    expect(err.error.message).toContain('failed for model "chat": network');
    expect(err.error.message).not.toContain('tls/m'); // no upstream names unless server.exposeUpstream
  });
});
