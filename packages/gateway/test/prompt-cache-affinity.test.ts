/**
 * Prompt-cache affinity through the gateway (Messages and Responses), the done test of issue 36's cache bullet:
 * twenty turns of one Claude Code-shaped session (its session id in `metadata.user_id`, streams,
 * `cache_control` breakpoints) over two equal-weight Anthropic deployments stay on one while it
 * answers; when it fails, the session moves, and exactly one answer says the cache was lost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, seededRandom, VirtualClock } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { metrics } from '@switchyard/plugin-metrics';
import { router } from '@switchyard/plugin-router';
import { Registry } from 'prom-client';
import { fails, raw, stopAll, vendor } from './support/harness.js';
import { AGENT_HEADERS, agentRequest, anthropicEvents, anthropicMessage, firstTurn, MODEL, startMessagesGateway, VENDOR_KEYS } from './support/messages.js';

afterEach(stopAll);

const overloaded = fails(529, 'Overloaded', { type: 'overloaded_error' });
const SESSION_USER = 'user_4f1c_account_2b7e41c0-5d1a-4f8e-9a3b-6c2d8e0f1a47_session_9d2e6b1a-3c4f-4e5d-8a9b-0c1d2e3f4a5b';

/** A loopback Anthropic that answers each turn with a short stream, or 529 while `down`. */
async function anthropic(name: string, down: Set<string>) {
  const served: number[] = [];
  const loop = await vendor((req, res, text) => {
    if (down.has(name)) return overloaded(req, res, text);
    const body = JSON.parse(text);
    served.push(body.messages.length);
    const script = { text: `answer from ${name}` };
    res.writeHead(200, { 'content-type': body.stream ? 'text/event-stream; charset=utf-8' : 'application/json' });
    res.end(body.stream ? anthropicEvents(script, 'claude-sonnet-4-5-20250929') : JSON.stringify(anthropicMessage(script, 'claude-sonnet-4-5-20250929')));
  });
  return { name, url: loop.url, served };
}

/** Turn `n` of the session: the conversation so far, the newest user message as the moving cache breakpoint. */
function turn(n: number) {
  const messages: unknown[] = [...firstTurn];
  for (let i = 1; i <= n; i++) messages.push({ role: 'assistant', content: [{ type: 'text', text: `done ${i - 1}` }] }, { role: 'user', content: [{ type: 'text', text: `step ${i}`, cache_control: { type: 'ephemeral' } }] });
  return agentRequest(messages, { metadata: { user_id: SESSION_USER } });
}

/** Two equal-weight Anthropic deployments of one model, the router with affinity, injected clock and seeded randomness. */
function twoDeployments(vendors: { name: string; url: string }[], seed: number) {
  return createPipeline({
    endpoints: vendors.map((v) => ({ name: v.name, provider: 'anthropic', baseUrl: v.url, apiKey: VENDOR_KEYS.anthropic })),
    models: { [MODEL]: vendors.map((v) => ({ endpoint: v.name, model: 'claude-sonnet-4-5-20250929', priority: 0, weight: 1 })) },
    providers: [anthropicProvider],
    plugins: [router({ sticky: true })],
    clock: new VirtualClock(),
    random: seededRandom(seed),
  });
}

describe('Messages: prompt-cache affinity', () => {
  it('keeps 20 turns of a Claude Code session on one of two equal deployments; after it fails exactly one answer carries x-switchyard-cache: lost', async () => {
    const down = new Set<string>();
    const vendors = [await anthropic('east', down), await anthropic('west', down)];
    const pipeline = twoDeployments(vendors, 36);
    const { origin } = await startMessagesGateway(pipeline);
    const send = (n: number) => raw(origin, '/v1/messages?beta=true', { body: JSON.stringify(turn(n)), headers: AGENT_HEADERS });

    const answeredBy: string[] = [];
    for (let n = 0; n < 20; n++) {
      const answer = await send(n);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-switchyard-cache')).toBeNull();
      answeredBy.push(answer.headers.get('x-switchyard-endpoint')!);
    }
    expect(new Set(answeredBy).size).toBe(1);
    const [home, other] = answeredBy[0] === 'east' ? vendors : [vendors[1], vendors[0]];
    expect(home.served).toHaveLength(20);
    expect(other.served).toEqual([]);

    down.add(home.name);
    const lost: (string | null)[] = [];
    for (let n = 20; n < 26; n++) {
      const answer = await send(n);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-switchyard-endpoint')).toBe(other.name);
      lost.push(answer.headers.get('x-switchyard-cache'));
    }
    expect(lost).toEqual(['lost', null, null, null, null, null]);
    expect(other.served).toHaveLength(6);
    await pipeline.close();
  });
});

describe('Responses: prompt-cache affinity', () => {
  it("keeps a Codex-shaped conversation (prompt_cache_key, no user) on one deployment and marks the one answer that moves it", async () => {
    const down = new Set<string>();
    const vendors = [await anthropic('east', down), await anthropic('west', down)];
    const pipeline = twoDeployments(vendors, 5);
    const { origin } = await startMessagesGateway(pipeline);
    const send = (n: number, key = '0199a1b2-codex-session') => raw(origin, '/v1/responses', { body: JSON.stringify({ model: MODEL, input: `step ${n}`, prompt_cache_key: key, store: false }) });
    const answeredBy = new Set<string>();
    for (let n = 0; n < 10; n++) answeredBy.add((await send(n)).headers.get('x-switchyard-endpoint')!);
    expect(answeredBy.size).toBe(1);
    // Other conversations are spread over both: the pin is per key, not global.
    const spread = new Set<string>();
    for (let n = 0; n < 12; n++) spread.add((await send(0, `other-${n}`)).headers.get('x-switchyard-endpoint')!);
    expect(spread).toEqual(new Set(['east', 'west']));
    down.add([...answeredBy][0]);
    const marks: (string | null)[] = [];
    for (let n = 10; n < 13; n++) {
      const answer = await send(n);
      expect(answer.status).toBe(200);
      marks.push(answer.headers.get('x-switchyard-cache'));
    }
    expect(marks).toEqual(['lost', null, null]);
    await pipeline.close();
  });
});

describe('prompt-cache tokens in every dialect', () => {
  it('reports cache reads and writes in the client’s own words (Messages, Chat, Responses) and bills writes at cacheWrite, reads at cachedInput', async () => {
    const usage = { input_tokens: 321, cache_creation_input_tokens: 200, cache_read_input_tokens: 100, output_tokens: 42 };
    const claude = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...anthropicMessage({ text: 'ok' }), usage }));
    });
    const registry = new Registry();
    const price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
    const pipeline = createPipeline({
      endpoints: [{ name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEYS.anthropic }],
      models: { [MODEL]: [{ endpoint: 'claude', model: 'claude-sonnet-4-5-20250929', price }] },
      providers: [anthropicProvider],
      plugins: [metrics({ registry })],
    });
    const { origin } = await startMessagesGateway(pipeline);
    const text = [{ role: 'user', content: 'hi' }];

    const messages = await raw(origin, '/v1/messages', { body: JSON.stringify({ model: MODEL, max_tokens: 100, messages: text }), headers: AGENT_HEADERS });
    expect(messages.json.usage).toMatchObject(usage);
    const chat = await raw(origin, '/v1/chat/completions', { body: JSON.stringify({ model: MODEL, messages: text }) });
    expect(chat.json.usage).toMatchObject({ prompt_tokens: 621, completion_tokens: 42, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 200 } });
    const responses = await raw(origin, '/v1/responses', { body: JSON.stringify({ model: MODEL, input: 'hi', store: false }) });
    expect(responses.json.usage).toMatchObject({ input_tokens: 621, output_tokens: 42, input_tokens_details: { cached_tokens: 100, cache_write_tokens: 200 } });

    const tokens = await registry.getSingleMetric('switchyard_tokens_total')!.get();
    const count = (direction: string) => tokens.values.find((v) => v.labels.direction === direction)?.value;
    expect([count('input'), count('cached'), count('cache_write'), count('output')]).toEqual([3 * 621, 3 * 100, 3 * 200, 3 * 42]);
    const cost = (await registry.getSingleMetric('switchyard_cost_usd_total')!.get()).values[0]!.value;
    expect(cost).toBeCloseTo((3 * (321 * 3 + 100 * 0.3 + 200 * 3.75 + 42 * 15)) / 1e6, 12);
    await pipeline.close();
  });
});
