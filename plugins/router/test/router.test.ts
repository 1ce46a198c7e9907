import { createPipeline, isSwitchyardError, seededRandom, STAGE, VirtualClock, type DeploymentConfig, type EndpointConfig, type Pipeline } from '@switchyard/core';
import { REQUEST_SLOT } from '@switchyard/contracts';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { router, type RouterOptionsInput } from '../src/index.js';
import { okCompletion, scriptedTransport, settle, type ScriptedAnswer, type ScriptedCall } from './support/scripted-transport.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

function setup(deployments: (DeploymentConfig & { delayMs?: number; status?: number })[], options: RouterOptionsInput = {}, answer?: (call: ScriptedCall) => ScriptedAnswer) {
  const clock = new VirtualClock();
  const endpoints: EndpointConfig[] = [...new Set(deployments.map((d) => d.endpoint))].map((name) => ({ name, provider: 'test', baseUrl: `http://${name}/v1` }));
  const transport = scriptedTransport(
    clock,
    answer ??
      ((call) => {
        const d = deployments.find((x) => x.endpoint === call.host && x.model === call.body.model)!;
        return { status: d.status ?? 200, delayMs: d.delayMs ?? 0, body: d.status && d.status >= 300 ? { error: { message: 'down' } } : okCompletion(d.model) };
      }),
  );
  const pipeline = createPipeline({
    endpoints,
    // Deployments without a priority form one tier here (core would order them by position).
    models: { chat: deployments.map(({ delayMs: _d, status: _s, ...d }) => ({ priority: 0, ...d })) },
    providers: [testProvider],
    plugins: [router(options)],
    clock,
    random: seededRandom(42),
    transport,
  });
  return { pipeline, clock, transport, firstChoices: () => firstAttempts(pipeline) };
}

/** The deployment each request tried first. */
function firstAttempts(pipeline: Pipeline): string[] {
  const firsts: string[] = [];
  pipeline.events.on('attempt:start', ({ attempt, candidate }) => {
    if (attempt === 1) firsts.push(candidate.deploymentId);
  });
  return firsts;
}

function share(list: string[], id: string): number {
  return list.filter((x) => x === id).length / list.length;
}

describe('router: priority-weighted', () => {
  it('sends traffic to the lowest priority tier, split by weight, with later tiers as fallbacks', async () => {
    const { pipeline, clock, firstChoices } = setup([
      { endpoint: 'a', model: 'm', priority: 0, weight: 3 },
      { endpoint: 'b', model: 'm', priority: 0, weight: 1 },
      { endpoint: 'c', model: 'm', priority: 1, weight: 100 },
    ]);
    const firsts = firstChoices();
    for (let i = 0; i < 2000; i++) await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(share(firsts, 'c/m')).toBe(0);
    expect(Math.abs(share(firsts, 'a/m') - 0.75)).toBeLessThan(0.03);
  });

  it('falls over to the other member of the tier, then to the next tier', async () => {
    const { pipeline, clock, transport } = setup([
      { endpoint: 'a', model: 'm', priority: 0, status: 503 },
      { endpoint: 'b', model: 'm', priority: 0, status: 503 },
      { endpoint: 'c', model: 'm', priority: 1 },
    ]);
    const response = await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(response.switchyard?.endpoint).toBe('c');
    expect(transport.calls.map((c) => c.host).slice(0, 2).sort()).toEqual(['a', 'b']);
  });
});

describe('router: round-robin', () => {
  it('cycles through a tier in turn', async () => {
    const { pipeline, clock, firstChoices } = setup(
      [
        { endpoint: 'a', model: 'm' },
        { endpoint: 'b', model: 'm' },
        { endpoint: 'c', model: 'm' },
        { endpoint: 'd', model: 'm', priority: 5 },
      ],
      { strategy: 'round-robin' },
    );
    const firsts = firstChoices();
    for (let i = 0; i < 6; i++) await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(firsts).toEqual(['a/m', 'b/m', 'c/m', 'a/m', 'b/m', 'c/m']);
  });
});

describe('router: least-latency', () => {
  it('sends most traffic to the faster endpoint of a tier (PeakEWMA + P2C, virtual time)', async () => {
    const { pipeline, clock, firstChoices } = setup(
      [
        { endpoint: 'fast', model: 'm', delayMs: 100 },
        { endpoint: 'slow', model: 'm', delayMs: 800 },
      ],
      { strategy: 'least-latency' },
    );
    const firsts = firstChoices();
    for (let i = 0; i < 200; i++) await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(share(firsts, 'fast/m')).toBeGreaterThan(0.95);
    // The slow one is re-probed once its estimate has decayed, never starved forever.
    expect(firsts.filter((f) => f === 'slow/m').length).toBeGreaterThanOrEqual(1);
  });

  it('counts a fast failure as slow (failure penalty), so a failing endpoint does not attract traffic', async () => {
    const { pipeline, clock, firstChoices } = setup(
      [
        { endpoint: 'broken', model: 'm', delayMs: 1, status: 500 },
        { endpoint: 'ok', model: 'm', delayMs: 300 },
      ],
      { strategy: 'least-latency' },
    );
    const firsts = firstChoices();
    for (let i = 0; i < 50; i++) await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(share(firsts, 'ok/m')).toBeGreaterThan(0.9);
  });

  it('spreads concurrent requests: in-flight attempts raise a deployment\'s load', async () => {
    const { pipeline, clock, firstChoices } = setup(
      [
        { endpoint: 'a', model: 'm', delayMs: 100 },
        { endpoint: 'b', model: 'm', delayMs: 120 },
      ],
      { strategy: 'least-latency' },
    );
    for (let i = 0; i < 4; i++) await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    const firsts = firstChoices();
    await settle(clock, Promise.all(Array.from({ length: 6 }, () => pipeline.chat({ model: 'chat', messages: hi }))));
    expect(new Set(firsts)).toEqual(new Set(['a/m', 'b/m']));
  });
});

describe('router: cost-aware', () => {
  const deployments: DeploymentConfig[] = [
    { endpoint: 'premium', model: 'big', priority: 0, price: { input: 10, output: 30 } },
    { endpoint: 'mid', model: 'medium', priority: 1, price: { input: 1, output: 3 } },
    { endpoint: 'cheap', model: 'small', priority: 2, price: { input: 0.1, output: 0.3 } },
  ];

  it('takes the cheapest at costTolerance 0 and the best at 1, per request', async () => {
    const { pipeline, clock, firstChoices } = setup(deployments, { strategy: 'cost-aware' });
    const firsts = firstChoices();
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, switchyard: { costTolerance: 0 } }));
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, switchyard: { costTolerance: 1 } }));
    expect(firsts).toEqual(['cheap/small', 'premium/big']);
  });

  it('uses the option as the default tolerance and keeps every deployment as a fallback', async () => {
    const { pipeline, clock, transport } = setup(
      deployments.map((d) => ({ ...d, status: d.endpoint === 'cheap' ? 503 : undefined })),
      { strategy: 'cost-aware', costTolerance: 0 },
    );
    const response = await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(transport.calls.map((c) => c.host)).toEqual(['cheap', 'mid']);
    expect(response.switchyard?.endpoint).toBe('mid');
  });

  it('applies per tier: the classification tier picks its own strategy', async () => {
    const { pipeline, clock, firstChoices } = setup(deployments, { strategy: 'priority-weighted', tiers: { batch: { strategy: 'cost-aware' } } });
    const firsts = firstChoices();
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, switchyard: { tier: 'batch', costTolerance: 0 } }));
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, switchyard: { costTolerance: 0 } }));
    expect(firsts).toEqual(['cheap/small', 'premium/big']);
  });
});

describe('router: capability matching', () => {
  const deployments: DeploymentConfig[] = [
    { endpoint: 'plain', model: 'text-only', capabilities: ['json'], contextWindow: 8_000 },
    { endpoint: 'tooly', model: 'tools', capabilities: ['tools', 'json'], contextWindow: 16_000 },
    { endpoint: 'any', model: 'unknown', priority: 3 },
  ];
  const tools = [{ type: 'function' as const, function: { name: 'f' } }];

  it('drops deployments that declare capabilities without the one the request needs', async () => {
    const { pipeline, clock, transport } = setup(deployments.map((d) => ({ ...d, status: d.endpoint === 'tooly' ? 503 : undefined })));
    const response = await settle(clock, pipeline.chat({ model: 'chat', messages: hi, tools }));
    // tooly failed; the deployment without declared capabilities may serve; plain is never sent it.
    expect(transport.calls.map((c) => c.host)).toEqual(['tooly', 'any']);
    expect(response.switchyard?.endpoint).toBe('any');
  });

  it('fails with a coded error naming the capability when no deployment has it, sending nothing', async () => {
    const { pipeline, clock, transport } = setup(deployments.slice(0, 2));
    const request = pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,x' } }] }] });
    const error = await settle(clock, request).catch((e) => e);
    expect(isSwitchyardError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'bad-request', code: 'SWITCHYARD_ERR_MISSING_CAPABILITY', status: 400, path: 'messages' });
    expect(error.message).toContain('"vision"');
    expect(transport.calls).toHaveLength(0);
  });

  it('answers no-candidate (503) when capable deployments exist but were all filtered out right now', async () => {
    const { pipeline, clock, transport } = setup(deployments);
    pipeline.hooks.route.tapPromise({ name: 'breaker-like', stage: STAGE.FILTER }, async (c) => c.filter((x) => x.endpoint.name !== 'tooly' && x.endpoint.name !== 'any'));
    const error = await settle(clock, pipeline.chat({ model: 'chat', messages: hi, tools })).catch((e) => e);
    expect(error).toMatchObject({ kind: 'no-candidate', status: 503 });
    expect(transport.calls).toHaveLength(0);
  });

  it('derives json from response_format and tools from earlier tool turns', async () => {
    const { pipeline, clock } = setup(deployments.slice(0, 2));
    const seen: string[][] = [];
    pipeline.hooks.route.tapPromise({ name: 'spy', stage: STAGE.LAST }, async (c, classification) => {
      seen.push([...classification.capabilities].sort());
      return c;
    });
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, response_format: { type: 'json_object' } }));
    await settle(clock, pipeline.chat({ model: 'chat', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: '1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: '1', content: 'r' }] }));
    expect(seen).toEqual([['json'], ['tools']]);
  });

  it('drops deployments whose context window is smaller than prompt + max_tokens', async () => {
    const { pipeline, clock, transport } = setup(deployments.slice(0, 2));
    const prompt = 'x'.repeat(4 * 7_000);
    await settle(clock, pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: prompt }], max_tokens: 2_000 }));
    expect(transport.calls.map((c) => c.host)).toEqual(['tooly']);
  });

  it('fails before sending when no window is large enough', async () => {
    const { pipeline, clock, transport } = setup(deployments.slice(0, 2));
    const error = await settle(clock, pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'x'.repeat(4 * 20_000) }] })).catch((e) => e);
    expect(error).toMatchObject({ kind: 'context-length', code: 'SWITCHYARD_ERR_CONTEXT_WINDOW', status: 400 });
    expect(error.message).toContain('16000');
    expect(transport.calls).toHaveLength(0);
  });
});

describe('router: filters and stickiness', () => {
  it('keeps candidates a filter demoted (the demoted request slot) behind all others', async () => {
    const { pipeline, clock, transport } = setup([
      { endpoint: 'a', model: 'm', priority: 0, status: 503 },
      { endpoint: 'b', model: 'm', priority: 1, status: 503 },
      { endpoint: 'c', model: 'm', priority: 2 },
    ]);
    pipeline.hooks.route.tapPromise({ name: 'demote-a', stage: STAGE.FILTER }, async (candidates, _c, ctx) => {
      REQUEST_SLOT.demoted.set(ctx, new Set(['a/m']));
      return [...candidates.filter((c) => c.id !== 'a/m'), ...candidates.filter((c) => c.id === 'a/m')];
    });
    const response = await settle(clock, pipeline.chat({ model: 'chat', messages: hi }));
    expect(transport.calls.map((c) => c.host)).toEqual(['b', 'c']);
    expect(response.switchyard?.endpoint).toBe('c');
  });

  it('pins a conversation to the deployment that answered it while it stays in the first tier', async () => {
    const { pipeline, clock, firstChoices } = setup(
      [
        { endpoint: 'a', model: 'm', weight: 1 },
        { endpoint: 'b', model: 'm', weight: 1 },
        { endpoint: 'c', model: 'm', priority: 1 },
      ],
      { sticky: true, stickyTtlMs: 60_000 },
    );
    const firsts = firstChoices();
    const convo = (id: string) => ({ model: 'chat', messages: hi, switchyard: { conversationId: id } });
    for (let i = 0; i < 20; i++) await settle(clock, pipeline.chat(convo('one')));
    expect(new Set(firsts).size).toBe(1);
    // Different conversations still spread over the tier.
    firsts.length = 0;
    for (let i = 0; i < 40; i++) await settle(clock, pipeline.chat(convo(`c${i}`)));
    expect(new Set(firsts)).toEqual(new Set(['a/m', 'b/m']));
  });

  it('forgets the pin after its TTL and ignores it when the deployment was filtered out', async () => {
    const { pipeline, clock, firstChoices } = setup(
      [
        { endpoint: 'a', model: 'm' },
        { endpoint: 'b', model: 'm' },
      ],
      { sticky: true, stickyTtlMs: 1_000 },
    );
    const firsts = firstChoices();
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, user: 'u1' }));
    const pinned = firsts[0];
    let drop: string | undefined = pinned;
    pipeline.hooks.route.tapPromise({ name: 'drop', stage: STAGE.FILTER }, async (c) => c.filter((x) => x.deploymentId !== drop));
    const other = pinned === 'a/m' ? 'b/m' : 'a/m';
    await settle(clock, pipeline.chat({ model: 'chat', messages: hi, user: 'u1' }));
    expect(firsts[1]).toBe(other);
    // `other` answered, so the conversation now sticks there.
    drop = undefined;
    for (let i = 0; i < 5; i++) await settle(clock, pipeline.chat({ model: 'chat', messages: hi, user: 'u1' }));
    expect(firsts.slice(2)).toEqual(new Array(5).fill(other));
    await clock.advance(1_001);
    const spread = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await clock.advance(1_001);
      firsts.length = 0;
      await settle(clock, pipeline.chat({ model: 'chat', messages: hi, user: 'u1' }));
      spread.add(firsts[0]);
    }
    expect(spread.size).toBe(2);
  });
});

describe('router: options', () => {
  it('rejects a bad strategy with a coded error naming the field', () => {
    expect(() => router({ strategy: 'fastest' as never })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'strategy' }));
    expect(() => router({ costTolerance: 2 })).toThrow(/costTolerance/);
  });
});
