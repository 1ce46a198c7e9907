/**
 * Stored responses on the real Redis (.ci/redis.sh, port 6390, a unique key prefix), shared by
 * two gateways: a response stored through one is fetched and continued through the other, and
 * Redis itself expires it after `server.responseTtlMs`.
 */
import { expect, it } from 'vitest';
import { NotFoundError } from 'openai';
import { createPipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider } from '@switchyard/provider-openai';
import { describeWithRedis, inspector } from '../../../plugins/store-redis/test/support/redis.js';
import { redisStoresPerTest } from './support/redis-stores.js';
import { RESPONSE_KEY_PREFIX } from '@switchyard/provider-openai/dialect';
import { startGateway, vendor, VENDOR_KEY, type Harness, type Loopback } from './support/harness.js';
import { anthropicVendor, responsesVendor, textScript } from './support/scripted-vendors.js';

const redisStores = redisStoresPerTest();
const TTL_MS = 120_000;


async function gateway(claude: Loopback, openai: Loopback): Promise<Harness> {
  const store = await redisStores.open();
  const pipeline = createPipeline({
    endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY }, { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY }],
    models: { claude: [{ endpoint: 'claude', model: 'claude-x' }], gpt: [{ endpoint: 'openai', model: 'gpt-x' }] },
    providers: [openaiProvider, anthropicProvider],
    store,
  });
  return startGateway(pipeline, { server: { responseTtlMs: TTL_MS } });
}

describeWithRedis('stored responses on one Redis, two gateways', () => {
  it('a response stored through A is fetched, continued and deleted through B; Redis holds it for the TTL', { timeout: 30_000 }, async () => {
    redisStores.usePrefix('responses');
    const claude = await vendor(anthropicVendor(textScript('Rome.')));
    const openai = await vendor(responsesVendor(textScript('Madrid.')));
    const a = await gateway(claude, openai);
    const b = await gateway(claude, openai);

    const first = await a.client.responses.stream({ model: 'claude', instructions: 'One word.', input: 'Capital of Italy?', store: true }).finalResponse();
    expect(first.output_text).toBe('Rome.');
    expect(await b.client.responses.retrieve(first.id)).toMatchObject({ id: first.id, status: 'completed', output_text: 'Rome.' });

    const redis = inspector();
    const ttl = await redis.pttl(`${redisStores.prefix}${RESPONSE_KEY_PREFIX}${first.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
    redis.disconnect();

    // B continues A's conversation on another vendor, which gets all of it.
    const second = await b.client.responses.create({ model: 'gpt', input: 'And of Spain?', previous_response_id: first.id, store: true });
    expect(second.output_text).toBe('Madrid.');
    const input = JSON.parse(openai.requests[0]!.body).input;
    expect(input.map((i: { role: string }) => i.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(input)).toContain('Rome.');
    expect((await a.client.responses.inputItems.list(second.id)).data.map((i) => i.type)).toEqual(['message', 'message', 'message']);

    await b.client.responses.delete(first.id);
    await expect(a.client.responses.retrieve(first.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
