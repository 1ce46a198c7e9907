/**
 * Responses state as OpenAI defines it: `store` defaults to true (the answer is written after
 * it went out), an `item_reference` to an item the gateway stored resolves from its store (the
 * AI SDK's second turn), and a vendor's 404 caused by the request reaches the client as a 404
 * with the vendor's own explanation, never as a 502 or a failover.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider } from '@switchyard/provider-openai';
import { raw, startGateway, stopAll, vendor, VENDOR_KEY } from './support/harness.js';
import { anthropicVendor, textScript } from './support/scripted-vendors.js';

afterEach(stopAll);

/** The probe's value once it has one, asked every turn of the event loop for up to 3 s (an answer stored after it went out is written a few ms later). */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 3_000; Date.now() < deadline; ) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition never held');
}

async function claudeGateway(script = textScript('Paris.'), store?: MemoryStateStore, options: Parameters<typeof startGateway>[1] = {}) {
  const claude = await vendor(anthropicVendor(script));
  const pipeline = createPipeline({ endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'claude', model: 'claude-x' }] }, providers: [anthropicProvider], ...(store ? { store } : {}) });
  return { claude, ...(await startGateway(pipeline, options)) };
}

describe('Responses state', () => {
  it('store defaults to true: the answer says so and is kept, written after it went out', async () => {
    const { origin } = await claudeGateway();
    const first = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'Capital of France?' }) });
    expect(first.status).toBe(200);
    expect(first.json.store).toBe(true);
    const stored = await until(async () => {
      const res = await raw(origin, `/v1/responses/${first.json.id}`, { method: 'GET' });
      return res.status === 200 ? res.json : undefined;
    });
    expect(stored.output[0].content[0].text).toBe('Paris.');
  });

  it('a next turn that arrives while its previous answer is still being written waits for the write, never "not found"', async () => {
    // A store whose writes are held until the test lets them go: the agent's next turn lands first.
    const held: (() => void)[] = [];
    let holding = true;
    class SlowStore extends MemoryStateStore {
      override async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
        if (holding) await new Promise<void>((resolve) => held.push(resolve));
        return super.set(key, value, ttlMs);
      }
    }
    const { origin } = await claudeGateway(textScript('Paris.'), new SlowStore());
    const first = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'Capital of France?' }) });
    expect(first.status).toBe(200);
    await until(async () => (held.length > 0 ? true : undefined));
    const second = raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'And of Italy?', previous_response_id: first.json.id }) });
    // The second turn is in the gateway before the first answer's write is let go.
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (held.length > 0) held.shift()!();
    const answer = await until(async () => {
      while (held.length > 0) held.shift()!();
      return Promise.race([second, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
    });
    expect(answer.status).toBe(200);
    // The second answer's own write (a few ms after it went out) goes through: the stop waits for it.
    holding = false;
    while (held.length > 0) held.shift()!();
  });

  it('a graceful stop waits for an answer still queued to be stored, but not past its grace period for a store that never takes it', async () => {
    class StuckStore extends MemoryStateStore {
      override async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
        if (key.startsWith('switchyard:responses:')) return new Promise<void>(() => undefined);
        return super.set(key, value, ttlMs);
      }
    }
    const { origin, gateway } = await claudeGateway(textScript('Paris.'), new StuckStore(), { server: { shutdownGraceMs: 100 } });
    const first = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'Capital of France?' }) });
    expect(first.status).toBe(200);
    const started = Date.now();
    await gateway.close();
    // It waited for the queued answer, and the grace period (100 ms), not the store, ended the wait.
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('an item_reference naming an item the gateway stored is resolved: a vendor of another API takes the turn', async () => {
    const { origin, claude } = await claudeGateway();
    const first = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: 'Capital of France?' }) });
    const itemId = first.json.output[0].id as string;
    await until(async () => ((await raw(origin, `/v1/responses/${first.json.id}`, { method: 'GET' })).status === 200 ? true : undefined));
    const second = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: [{ role: 'user', content: 'Capital of France?' }, { type: 'item_reference', id: itemId }, { role: 'user', content: 'And of Italy?' }] }) });
    expect(second.status).toBe(200);
    const turns = JSON.parse(claude.requests[1]!.body).messages.map((m: any) => [m.role, m.content.map((b: any) => b.text).join('')]);
    expect(turns).toEqual([
      ['user', 'Capital of France?'],
      ['assistant', 'Paris.'],
      ['user', 'And of Italy?'],
    ]);
    // One nobody stored still keeps the other vendors out (only OpenAI could know it).
    const unknown = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_nobody' }] }) });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain('item_reference');
  });

  it('a vendor 404 caused by the request is the client’s 404 with the vendor’s message, and no failover', async () => {
    const message = "Item with id 'rs_68a1' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.";
    const openai = await vendor((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'input', code: null } }));
    });
    const claude = await vendor(anthropicVendor(textScript('never')));
    const pipeline = createPipeline({
      endpoints: [{ name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }, { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }],
      models: { chat: [{ endpoint: 'openai', model: 'gpt-5' }, { endpoint: 'claude', model: 'claude-x' }] },
      providers: [openaiProvider, anthropicProvider],
    });
    const { origin } = await startGateway(pipeline);
    const res = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: 'chat', input: [{ role: 'user', content: 'hi' }, { type: 'reasoning', id: 'rs_68a1', summary: [], encrypted_content: 'gAAAA' }] }) });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ message, type: 'invalid_request_error', param: 'input' });
    expect(claude.requests).toHaveLength(0);
  });
});
