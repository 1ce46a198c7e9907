/**
 * A gateway with virtual keys (plugin-tenants + plugin-quota) on the real Redis, for the
 * hostile-tenant tests of issue 34: an admin client, keys made through the admin API, and
 * official-SDK clients for them.
 */
import net from 'node:net';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { createPipeline, type Plugin, type PipelineOptions } from '@switchyard/core';
import { quota } from '@switchyard/plugin-quota';
import { tenants, type TenantsOptionsInput } from '@switchyard/plugin-tenants';
import { openaiProvider } from '@switchyard/provider-openai';
import type { RedisStores } from './redis-stores.js';
import type { GatewayOptions } from '../../src/index.js';
import { startGateway, VENDOR_KEY, type Harness, type Loopback } from './harness.js';

export const ADMIN_KEY = 'admin-key-for-issue-34-tests-0123';
/** $1000 per million tokens, both ways: an answer of 4 + 1 tokens costs $0.005. */
export const PRICE = { input: 1000, output: 1000 };

export interface TenantRig {
  h: Harness;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** A key made through the admin API: its id and an official-SDK client holding it. */
  key(fields: Record<string, unknown>): Promise<{ id: string; secret: string; client: OpenAI }>;
  /** The key's spend today, in USD. */
  spentToday(id: string): Promise<number>;
}

export async function tenantGateway(
  stores: RedisStores,
  upstream: Loopback,
  options: { tenants?: TenantsOptionsInput; quota?: Plugin; plugins?: Plugin[]; extra?: Partial<PipelineOptions>; server?: Partial<GatewayOptions['server']> } = {},
): Promise<TenantRig> {
  const store = await stores.open();
  const pipeline = createPipeline({
    endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url, apiKey: VENDOR_KEY }],
    models: { chat: [{ endpoint: 'primary', model: 'primary-model', price: PRICE }] },
    providers: [openaiProvider],
    store,
    plugins: [options.quota ?? quota({ ledger: {} }), tenants(options.tenants ?? {}), ...(options.plugins ?? [])],
    ...options.extra,
  });
  const h = await startGateway(pipeline, { server: { adminKeys: [ADMIN_KEY], ...options.server } as GatewayOptions['server'] });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(h.origin + path, { method, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };
  return {
    h,
    admin,
    async key(fields) {
      const created = await admin('POST', '/switchyard/keys', fields);
      expect(created.status).toBe(201);
      return { id: created.json.key.id, secret: created.json.secret, client: new OpenAI({ baseURL: h.baseURL, apiKey: created.json.secret, maxRetries: 0 }) };
    },
    async spentToday(id) {
      const usage = await admin('GET', `/switchyard/keys/${id}/usage`);
      expect(usage, 'the key\'s usage').toMatchObject({ status: 200 });
      return usage.json.spend.day.spentUsd;
    },
  };
}

/** The status and code a call was refused with (the SDK's error). */
export async function refusedWith(work: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const error = (await work.then(() => undefined, (e: unknown) => e)) as InstanceType<typeof OpenAI.APIError> | undefined;
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return { status: error!.status!, code: String(error!.code), message: error!.message };
}

/**
 * A TCP relay to the real Redis that can stall: while stalled it forwards nothing either way
 * and keeps every socket open (what a Redis frozen by a long command or a GC pause looks like).
 */
export async function stallableRelay(target: { host: string; port: number }): Promise<{ url: string; stall(): void; resume(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const held: (() => void)[] = [];
  let stalled = false;
  const forward = (from: net.Socket, to: net.Socket) =>
    from.on('data', (data) => {
      if (!stalled) to.write(data);
      else held.push(() => to.write(data));
    });
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(s);
      });
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    stall: () => void (stalled = true),
    resume() {
      stalled = false;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
