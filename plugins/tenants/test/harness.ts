/** A pipeline with the tenants plugin on a virtual clock, a real loopback vendor, and the admin API called in process. */
import { type AdminAnswer, type Authentication } from '@switchyard/contracts';
import { createPipeline, MemoryStateStore, VirtualClock, type CallerIdentity, type Pipeline, type Plugin, type StateStore } from '@switchyard/core';
import { quota } from '@switchyard/plugin-quota';
import { openaiProvider } from '@switchyard/provider-openai';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { getTenants, tenants, type TenantsOptionsInput } from '../src/index.js';

/** 2026-05-04 12:00 UTC. */
export const START = Date.UTC(2026, 4, 4, 12, 0, 0);

/** A store that counts the reads of key records (what the key check costs on a cache miss). */
export class CountingStore extends MemoryStateStore {
  keyReads = 0;

  override async get<T>(key: string): Promise<T | undefined> {
    if (key.includes(':key:')) this.keyReads++;
    return super.get<T>(key);
  }
}

export interface Rig {
  pipeline: Pipeline;
  clock: VirtualClock;
  store: StateStore;
  vendor: Loopback;
  admin(method: string, path: string, body?: unknown): Promise<AdminAnswer & { body: any }>;
  /** Creates a key; its secret and the caller it authenticates as. */
  key(fields: Record<string, unknown>): Promise<{ id: string; secret: string; caller: CallerIdentity }>;
  authenticate(presented: string): Authentication | Promise<Authentication>;
  close(): Promise<void>;
}

/** `usage`: the vendor's token counts per answer (3 + 2 by default). */
export async function rig(options: TenantsOptionsInput = {}, extra: { store?: StateStore; plugins?: Plugin[]; clock?: VirtualClock; usage?: { prompt_tokens: number; completion_tokens: number } } = {}): Promise<Rig> {
  const clock = extra.clock ?? new VirtualClock(START);
  const store = extra.store ?? new MemoryStateStore(clock);
  // Options are parsed here, before anything is started.
  const plugins = extra.plugins ?? [quota({ ledger: {} }), tenants(options)];
  const vendor = await startLoopback((_req, res, body) => {
    const answer = completion('ok', JSON.parse(body).model) as { usage: unknown };
    if (extra.usage) answer.usage = { ...extra.usage, total_tokens: extra.usage.prompt_tokens + extra.usage.completion_tokens };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  const pipeline = createPipeline({
    endpoints: [{ name: 'v', provider: 'openai', baseUrl: vendor.url, apiKey: 'sk-vendor-0123456789' }],
    // $1000 per million tokens: an answer of 3 + 2 tokens costs $0.005.
    models: { chat: [{ endpoint: 'v', model: 'm', price: { input: 1000, output: 1000 } }], 'gpt-4o-mini': [{ endpoint: 'v', model: 'm2', price: { input: 1000, output: 1000 } }] },
    providers: [openaiProvider],
    plugins,
    clock,
    store,
  });
  const service = getTenants(pipeline)!;
  const admin = async (method: string, path: string, body?: unknown) => (await service.admin({ method, path, query: {}, body })) as AdminAnswer & { body: any };
  return {
    pipeline,
    clock,
    store,
    vendor,
    admin,
    async key(fields) {
      const created = await admin('POST', '/switchyard/keys', fields);
      const caller = await service.authenticate(created.body.secret);
      if (!caller || caller instanceof Error) throw new Error('a new key does not authenticate');
      return { id: created.body.key.id, secret: created.body.secret, caller };
    },
    authenticate: (presented) => service.authenticate(presented),
    async close() {
      await pipeline.close();
      await vendor.close();
    },
  };
}

export const ask = (model = 'chat', extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }], ...extra });

/** The coded error a call was refused with. */
export async function refusal(work: Promise<unknown>): Promise<{ code: string; status?: number; message: string; retryAfterMs?: number }> {
  const error = (await work.then(() => undefined, (e: unknown) => e)) as { code: string; status?: number; message: string; retryAfterMs?: number } | undefined;
  if (!error) throw new Error('expected a refusal, got an answer');
  return error;
}
