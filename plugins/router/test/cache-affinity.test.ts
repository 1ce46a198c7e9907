import { createPipeline, seededRandom, VirtualClock, type ChatRequest, type EndpointConfig } from '@switchyard/core';
import type { CacheLost } from '@switchyard/contracts';
import { setRequestOrigin } from '@switchyard/core/wire';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { router } from '../src/index.js';
import { cachedPrefix } from '../src/sticky.js';
import { okCompletion, scriptedTransport, settle } from './support/scripted-transport.js';

/** Two equal-weight deployments of one model; `down` fails the named endpoints with a 529. */
function setup(seed = 7) {
  const clock = new VirtualClock();
  const down = new Set<string>();
  const endpoints: EndpointConfig[] = ['a', 'b'].map((name) => ({ name, provider: 'test', baseUrl: `http://${name}/v1` }));
  const transport = scriptedTransport(clock, (call) => (down.has(call.host) ? { status: 529, body: { error: { message: 'overloaded' } } } : { body: okCompletion(String(call.body.model)) }));
  const pipeline = createPipeline({
    endpoints,
    models: { chat: [{ endpoint: 'a', model: 'm', priority: 0, weight: 1 }, { endpoint: 'b', model: 'm', priority: 0, weight: 1 }] },
    providers: [testProvider],
    plugins: [router({ sticky: true })],
    clock,
    random: seededRandom(seed),
    transport,
  });
  const lost: CacheLost[] = [];
  pipeline.events.on('cache:lost', (e) => lost.push(e));
  return { pipeline, clock, transport, down, lost };
}

/** A Claude Code turn: its session id travels in `metadata.user_id`, which the Messages decoder makes `user`. */
const SESSION = 'user_5f3a_account_0b1c2d3e-0000-4000-8000-000000000001_session_7d2e91aa-1b2c-4d5e-8f90-aabbccddeeff';
const turn = (n: number, user = SESSION): ChatRequest => ({ model: 'chat', user, messages: [{ role: 'user', content: `turn ${n}` }] });

describe('router: prompt-cache affinity', () => {
  it('keeps 20 turns of one session on one deployment while it is healthy, and marks exactly one answer when a failover loses the cache', async () => {
    const { pipeline, clock, transport, down, lost } = setup();
    const answeredBy: string[] = [];
    for (let n = 0; n < 20; n++) {
      const response = await settle(clock, pipeline.chat(turn(n)));
      answeredBy.push(response.switchyard!.deployment);
      expect(response.switchyard?.cacheLost).toBeUndefined();
    }
    expect(new Set(answeredBy).size).toBe(1);
    const home = answeredBy[0];
    const other = home === 'a/m' ? 'b/m' : 'a/m';
    // Other sessions still spread over both (the pin is per conversation, not global).
    const spread = new Set<string>();
    for (let i = 0; i < 20; i++) spread.add((await settle(clock, pipeline.chat(turn(0, `user_x_session_${String(i).padStart(8, '0')}`)))).switchyard!.deployment);
    expect(spread).toEqual(new Set(['a/m', 'b/m']));

    down.add(home.slice(0, 1));
    const marks: (string | undefined)[] = [];
    for (let n = 20; n < 30; n++) {
      const response = await settle(clock, pipeline.chat(turn(n)));
      expect(response.switchyard?.deployment).toBe(other);
      marks.push(response.switchyard?.cacheLost);
    }
    expect(marks.filter((m) => m !== undefined)).toEqual([home]);
    expect(marks[0]).toBe(home);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ model: 'chat', from: home, source: 'session' });
    expect(lost[0].to.deploymentId).toBe(other);
    // Once the old deployment is back the session stays where its cache now is.
    down.clear();
    transport.calls.length = 0;
    for (let n = 30; n < 35; n++) expect((await settle(clock, pipeline.chat(turn(n)))).switchyard?.cacheLost).toBeUndefined();
    expect(new Set(transport.calls.map((c) => `${c.host}/m`))).toEqual(new Set([other]));
  });

  it("scopes a pin to the caller's gateway key: another tenant sending the same session id neither reads nor moves it", async () => {
    const { pipeline, clock, lost } = setup(3);
    const as = (keyId: string, n: number) => settle(clock, pipeline.chat(turn(n), { caller: { keyId } }));
    const home = (await as('key_a', 0)).switchyard!.deployment;
    // Tenant B's answers land wherever its own routing puts them; tenant A's pin never changes.
    const seenByB = new Set<string>();
    for (let n = 0; n < 20; n++) {
      seenByB.add((await as(`key_b${n}`, n)).switchyard!.deployment);
      expect((await as('key_a', n + 1)).switchyard?.deployment).toBe(home);
    }
    expect(seenByB).toEqual(new Set(['a/m', 'b/m']));
    expect(lost).toEqual([]);
  });

  it('identifies a conversation by prompt_cache_key, and without any id by its prompt up to the first cache_control breakpoint', async () => {
    const { pipeline, clock } = setup(11);
    const keyed = (n: number): ChatRequest => Object.assign({ model: 'chat', messages: [{ role: 'user' as const, content: `q${n}` }] }, { prompt_cache_key: 'codex-conv-1' });
    const byKey = new Set<string>();
    for (let n = 0; n < 10; n++) byKey.add((await settle(clock, pipeline.chat(keyed(n)))).switchyard!.deployment);
    expect(byKey.size).toBe(1);

    // An Anthropic-shaped body: the system prompt is the cached prefix; later turns add messages after it.
    const system = [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }];
    const prefixed = (n: number): ChatRequest => {
      const messages = Array.from({ length: n + 1 }, (_, i) => ({ role: 'user' as const, content: `step ${i}` }));
      const request: ChatRequest = { model: 'chat', messages };
      setRequestOrigin(request, { format: 'anthropic-messages', body: { system, messages: messages.map((m, i) => (i === n ? { ...m, content: [{ type: 'text', text: m.content, cache_control: { type: 'ephemeral' } }] } : m)) } });
      return request;
    };
    const byPrefix = new Set<string>();
    for (let n = 0; n < 10; n++) byPrefix.add((await settle(clock, pipeline.chat(prefixed(n)))).switchyard!.deployment);
    expect(byPrefix.size).toBe(1);
  });

  it('reads the cached prefix in Anthropic order and only up to the first breakpoint', () => {
    const tools = [{ name: 't', input_schema: {} }];
    expect(cachedPrefix({ tools, messages: [{ role: 'user', content: 'x' }] })).toBeUndefined();
    const marked = { tools: [{ ...tools[0], cache_control: { type: 'ephemeral' } }], system: 'long', messages: [{ role: 'user', content: 'x' }] };
    expect(JSON.parse(cachedPrefix(marked)!)).toEqual(marked.tools);
    const inSystem = { tools, system: [{ type: 'text', text: 's', cache_control: {} }, { type: 'text', text: 'tail' }], messages: [] };
    expect(JSON.parse(cachedPrefix(inSystem)!)).toEqual([tools[0], inSystem.system[0]]);
  });
});
