/**
 * Virtual keys on two gateways sharing one real Redis (.ci/redis.sh, port 6390, a unique key
 * prefix): a key created on one works on the other at once, a revocation on one is refused on
 * the other within a second (pub/sub, not the cache's TTL), 32 requests racing the last of a
 * budget across both never overspend, and both report the same usage to the cent.
 */
import OpenAI from 'openai';
import { expect, it } from 'vitest';
import { createPipeline } from '@switchyard/core';
import { quota } from '@switchyard/plugin-quota';
import { tenants } from '@switchyard/plugin-tenants';
import { openaiProvider } from '@switchyard/provider-openai';
import { describeWithRedis } from '../../../plugins/store-redis/test/support/redis.js';
import { redisStoresPerTest } from './support/redis-stores.js';
import { answers, startGateway, vendor, VENDOR_KEY, type Harness, type Loopback } from './support/harness.js';

const ADMIN_KEY = 'admin-key-for-redis-tests-0123';
const redisStores = redisStoresPerTest();


async function gateway(upstream: Loopback): Promise<Harness> {
  const store = await redisStores.open();
  const pipeline = createPipeline({
    endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url, apiKey: VENDOR_KEY }],
    // $1000 per million tokens: an answer (3 + 2 tokens) costs $0.005.
    models: { chat: [{ endpoint: 'primary', model: 'primary-model', price: { input: 1000, output: 1000 } }] },
    providers: [openaiProvider],
    store,
    // A minute of cache: only pub/sub can make a revocation reach the other gateway within a second.
    plugins: [quota({ ledger: {} }), tenants({ cacheTtlMs: 60_000 })],
  });
  return startGateway(pipeline, { server: { adminKeys: [ADMIN_KEY] } });
}

async function admin(h: Harness, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(h.origin + path, { method, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
  return res.json();
}

const sdk = (h: Harness, apiKey: string) => new OpenAI({ baseURL: h.baseURL, apiKey, maxRetries: 0 });
const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 10 };

describeWithRedis('virtual keys on two gateways on one Redis', () => {
  it('share keys, revocations, budgets and books', { timeout: 30_000 }, async () => {
    redisStores.usePrefix('tenants');
    const upstream = await vendor(answers(['hello']));
    const a = await gateway(upstream);
    const b = await gateway(upstream);

    // Created through A, it works on B at once.
    const created = await admin(a, 'POST', '/switchyard/keys', { name: 'team-a-app', team: 'a' });
    const onB = sdk(b, created.secret);
    const onA = sdk(a, created.secret);
    expect((await onB.chat.completions.create(ask)).choices[0].message.content).toBe('hello');
    expect((await onA.chat.completions.create(ask)).choices[0].message.content).toBe('hello');

    // Revoked through B: refused on A (whose cache holds the key for a minute) within a second.
    await admin(b, 'POST', `/switchyard/keys/${created.key.id}/revoke`, {});
    const revokedAt = Date.now();
    await expect
      .poll(async () => (await onA.chat.completions.create(ask).then(() => 200, (e: { status?: number }) => e.status)), { timeout: 1_000, interval: 20 })
      .toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect(await onB.chat.completions.create(ask).then(() => 200, (e: { status?: number }) => e.status)).toBe(401);

    // The last of a budget: $0.04 a day, $0.005 spent, so one reservation of $0.023 (13 input tokens at most, 10 of output) fits at a time.
    const racer = await admin(a, 'POST', '/switchyard/keys', { name: 'racer', team: 'b', budget: { day: { limitUsd: 0.04 } } });
    const estimateUsd = 0.023;
    await sdk(b, racer.secret).chat.completions.create(ask);
    const clients = [sdk(a, racer.secret), sdk(b, racer.secret)];
    const results = await Promise.all(
      Array.from({ length: 32 }, (_v, i) => clients[i % 2].chat.completions.create(ask).then(() => 'ok', (e: { status?: number; code?: string }) => `${e.status} ${e.code}`)),
    );
    const served = results.filter((r) => r === 'ok').length;
    expect(served).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r !== 'ok')).toEqual(Array(32 - served).fill('429 budget_exhausted'));

    // Both gateways read the same books: the key's spend, its team's, the ledger's totals.
    const usageA = await admin(a, 'GET', `/switchyard/keys/${racer.key.id}/usage`);
    const usageB = await admin(b, 'GET', `/switchyard/keys/${racer.key.id}/usage`);
    expect(usageA.spend).toEqual(usageB.spend);
    expect(usageA.team).toEqual(usageB.team);
    expect(usageA.ledger).toEqual(usageB.ledger);
    const spent = usageA.spend.day.spentUsd;
    expect(spent).toBeCloseTo((served + 1) * 0.005, 9);
    expect(spent).toBeLessThanOrEqual(0.04 + estimateUsd);
    // Every answer cost less than its reservation: not even one request over.
    expect(spent).toBeLessThanOrEqual(0.04);
    expect(usageA.ledger.usage).toMatchObject({ requests: served + 1, costUsd: spent });
    expect(usageA.team.spend.day.spentUsd).toBe(spent);
    const ledger = async (h: Harness) => (await fetch(`${h.origin}/switchyard/usage?groupBy=gatewayKey`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
    expect(await ledger(a)).toEqual(await ledger(b));
    expect(usageA.limits.concurrency).toEqual({ inFlight: 0, limit: null });
  });
});
