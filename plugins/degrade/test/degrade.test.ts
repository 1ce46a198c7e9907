import { afterEach, describe, expect, it } from 'vitest';
import { cache } from '../../cache/src/index.js';
import { degrade, type Level } from '../src/index.js';
import { ask, rig, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const ladder: Level[] = [
  { type: 'model', model: 'mini' },
  { type: 'endpoint', endpoint: 'ollama', model: 'qwen2.5:7b' },
  { type: 'stale-cache' },
  { type: 'canned', text: 'We are busy; please try again in a minute.' },
];

async function withLadder(levels: Level[] = ladder) {
  current = await rig(() => [cache({ ttlMs: 1_000 }), degrade({ models: { chat: levels } })]);
  const events: string[] = [];
  current.pipeline.events.on('degraded', (e) => events.push(e.level));
  return { ...current, events };
}

describe('degrade levels, in order', () => {
  it('first the cheaper model', async () => {
    const { pipeline, primary, events } = await withLadder();
    primary.health = 'down';
    const r = await pipeline.chat(ask());
    expect(r.choices[0].message.content).toBe('cheap says hi');
    expect(r.model).toBe('gpt-4o-mini');
    expect(r.switchyard).toMatchObject({ degraded: 'model:mini', endpoint: 'cheap', attempts: 2 });
    expect(events).toEqual(['model:mini']);
  });

  it('then the local endpoint', async () => {
    const { pipeline, primary, cheap, local, events } = await withLadder();
    primary.health = cheap.health = 'down';
    const r = await pipeline.chat(ask());
    expect(r.choices[0].message.content).toBe('local says hi');
    expect(r.switchyard).toMatchObject({ degraded: 'endpoint:ollama/qwen2.5:7b', endpoint: 'ollama', deployment: 'ollama/qwen2.5:7b', attempts: 3 });
    expect(events).toEqual(['model:mini', 'endpoint:ollama/qwen2.5:7b']);
    expect(JSON.parse(local.server.requests[0].body).model).toBe('qwen2.5:7b');
  });

  it('then the stale cache, at the position the plan gives it', async () => {
    const { pipeline, clock, primary, cheap, local, events } = await withLadder();
    await pipeline.chat(ask());
    await clock.advance(5_000);
    primary.health = cheap.health = local.health = 'down';
    const r = await pipeline.chat(ask());
    expect(r.choices[0].message.content).toBe('primary says hi');
    expect(r.switchyard).toMatchObject({ degraded: 'stale-cache', stale: true, cached: true });
    expect(events).toEqual(['model:mini', 'endpoint:ollama/qwen2.5:7b', 'stale-cache']);
  });

  it('then the canned answer', async () => {
    const { pipeline, primary, cheap, local, events } = await withLadder();
    primary.health = cheap.health = local.health = 'down';
    const r = await pipeline.chat(ask());
    expect(r.choices[0].message.content).toBe('We are busy; please try again in a minute.');
    expect(r.switchyard).toMatchObject({ degraded: 'canned' });
    expect(events).toEqual(['model:mini', 'endpoint:ollama/qwen2.5:7b', 'canned']);
  });

  it('finally a clean error that says what was tried', async () => {
    const { pipeline, primary, cheap, local } = await withLadder(ladder.slice(0, 3));
    primary.health = cheap.health = local.health = 'down';
    const err = await pipeline.chat(ask()).catch((e) => e);
    expect(err.kind).toBe('all-candidates-failed');
    expect(err.message).toContain('openai/gpt-4o: overloaded 503');
    expect(err.message).toContain('degrade levels tried without an answer: model:mini (cheap/gpt-4o-mini: overloaded 503); endpoint:ollama/qwen2.5:7b (ollama/qwen2.5:7b: overloaded 503); stale-cache (no stored answer)');
    expect(err.attempts).toHaveLength(3);
    expect(err.message).not.toContain('secret');
  });

  it('a stale answer is not served while a level above it can still answer', async () => {
    const { pipeline, clock, primary } = await withLadder();
    await pipeline.chat(ask());
    await clock.advance(5_000);
    primary.health = 'down';
    const r = await pipeline.chat(ask());
    expect(r.switchyard).toMatchObject({ degraded: 'model:mini' });
    expect(r.switchyard?.stale).toBeUndefined();
  });

  it('streams from a degraded model, and replays a canned answer as a stream', async () => {
    const { pipeline, primary, cheap, local } = await withLadder();
    primary.health = 'down';
    const s = await pipeline.stream(ask());
    expect(s.info).toMatchObject({ degraded: 'model:mini', endpoint: 'cheap' });
    expect((await s.collect()).choices[0].message.content).toBe('cheap says hi');
    cheap.health = local.health = 'down';
    const c = await pipeline.stream(ask('other'));
    expect(c.info).toMatchObject({ degraded: 'canned' });
    expect((await c.collect()).choices[0].message.content).toMatch(/busy/);
  });

  it('does not degrade a request the vendor rejected', async () => {
    const { pipeline, primary, cheap } = await withLadder();
    primary.health = 'bad-request';
    await expect(pipeline.chat(ask())).rejects.toMatchObject({ kind: 'bad-request', status: 400 });
    expect(cheap.server.requests).toHaveLength(0);
  });

  it('a tier plan wins over the model plan; models without a plan are left alone', async () => {
    current = await rig(() => [degrade({ models: { chat: [{ type: 'canned', text: 'model plan' }] }, tiers: { batch: [{ type: 'canned', text: 'tier plan' }] } })]);
    current.primary.health = current.cheap.health = 'down';
    expect((await current.pipeline.chat(ask('x', { switchyard: { tier: 'batch' } }))).choices[0].message.content).toBe('tier plan');
    expect((await current.pipeline.chat(ask())).choices[0].message.content).toBe('model plan');
    await expect(current.pipeline.chat({ ...ask(), model: 'mini' })).rejects.toMatchObject({ kind: 'all-candidates-failed' });
  });

  it('accepts endpoint/model in a model level', async () => {
    current = await rig(() => [degrade({ levels: [{ type: 'model', model: 'ollama/llama3.2:3b' }] })]);
    current.primary.health = 'down';
    const r = await current.pipeline.chat(ask());
    expect(r.switchyard).toMatchObject({ degraded: 'model:ollama/llama3.2:3b', deployment: 'ollama/llama3.2:3b' });
  });
});

describe('option validation', () => {
  it.each<[object, string, RegExp]>([
    [{ models: { chat: [{ type: 'canned', text: 'x' }, { type: 'endpoint', endpoint: 'olama', model: 'q' }] } }, 'models.chat[1].endpoint', /unknown endpoint "olama"/],
    [{ levels: [{ type: 'model', model: 'gpt-5' }] }, 'levels[0].model', /"gpt-5" is neither a logical model/],
    [{ models: { chatt: [] } }, 'models.chatt', /unknown model "chatt"/],
  ])('%j is a config error naming %s', async (options, path, message) => {
    let err: unknown;
    try {
      current = await rig(() => [degrade(options as never)]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path });
    expect((err as Error).message).toMatch(message);
  });

  it('rejects an unknown level type', () => {
    expect(() => degrade({ levels: [{ type: 'pray' }] } as never)).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS' }));
  });
});
