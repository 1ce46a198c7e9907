/**
 * Issue 36: a session the client names in a header (Claude Code's `X-Claude-Code-Session-Id`)
 * reaches the router's prompt-cache affinity as `CallOptions.sessionId`: a session's turns stay on
 * one of two equal deployments, in one gateway and across two gateways sharing a real Redis
 * (.ci/redis.sh, port 6390, a unique key prefix; skipped without it locally, failing under CI).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, seededRandom, type StateStore } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { router } from '@switchyard/plugin-router';
import { describeWithRedis } from '../../../plugins/store-redis/test/support/redis.js';
import { raw, stopAll, vendor } from './support/harness.js';
import { anthropicMessage, MODEL, startMessagesGateway, VENDOR_KEYS } from './support/messages.js';
import { redisStoresPerTest } from './support/redis-stores.js';

afterEach(stopAll);

async function anthropic(name: string) {
  const served: number[] = [];
  const loop = await vendor((_req, res, text) => {
    served.push(1);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(anthropicMessage({ text: `from ${name}` }, JSON.parse(text).model)));
  });
  return { name, url: loop.url, served };
}

function twoDeployments(vendors: { name: string; url: string }[], seed: number, store?: StateStore) {
  return createPipeline({
    endpoints: vendors.map((v) => ({ name: v.name, provider: 'anthropic', baseUrl: v.url, apiKey: VENDOR_KEYS.anthropic })),
    models: { [MODEL]: vendors.map((v) => ({ endpoint: v.name, model: 'claude-sonnet-4-5-20250929', priority: 0, weight: 1 })) },
    providers: [anthropicProvider],
    plugins: [router({ sticky: true })],
    random: seededRandom(seed),
    ...(store ? { store } : {}),
  });
}

/** A turn with nothing else that names its conversation: no metadata, no cache_control breakpoint. */
const turn = (n: number) => JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: `question ${n}` }] });
const session = (id: string) => ({ 'x-claude-code-session-id': id, 'anthropic-version': '2023-06-01' });

describe('session header → prompt-cache affinity', () => {
  it('the turns of a session named by X-Claude-Code-Session-Id stay on one deployment; unnamed turns spread', async () => {
    const vendors = [await anthropic('east'), await anthropic('west')];
    const { origin } = await startMessagesGateway(twoDeployments(vendors, 5));
    const endpoints = async (headers: Record<string, string>, n: number) => (await raw(origin, '/v1/messages', { body: turn(n), headers })).headers.get('x-switchyard-endpoint');
    const pinned = new Set<string | null>();
    for (let n = 0; n < 12; n++) pinned.add(await endpoints(session('7d2e91aa-1b2c-4d5e-8f90-aabbccddeeff'), n));
    expect(pinned.size).toBe(1);
    const unnamed = new Set<string | null>();
    for (let n = 0; n < 12; n++) unnamed.add(await endpoints({ 'anthropic-version': '2023-06-01' }, n));
    expect(unnamed).toEqual(new Set(['east', 'west']));
  });
});

const redisStores = redisStoresPerTest();

describeWithRedis('session affinity on a shared Redis', () => {
  it('two gateways on one Redis keep a session on one deployment whichever gateway gets the turn', { timeout: 30_000 }, async () => {
    redisStores.usePrefix('session-affinity');
    const vendors = [await anthropic('east'), await anthropic('west')];
    const a = await startMessagesGateway(twoDeployments(vendors, 1, await redisStores.open()));
    const b = await startMessagesGateway(twoDeployments(vendors, 2, await redisStores.open()));
    const seen = new Set<string | null>();
    for (let n = 0; n < 12; n++) {
      const origin = n % 2 === 0 ? a.origin : b.origin;
      const res = await raw(origin, '/v1/messages', { body: turn(n), headers: session('0b1c2d3e-0000-4000-8000-000000000001') });
      expect(res.status).toBe(200);
      seen.add(res.headers.get('x-switchyard-endpoint'));
    }
    expect(seen.size).toBe(1);
    expect(vendors.map((v) => v.served.length).sort()).toEqual([0, 12]);
  });
});
