import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore, VirtualClock } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { quota } from '../src/index.js';
import { answer, ask, failure, rig, upstream, type Reply, type Rig, type Seen } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

/** One endpoint `a` with two keys serving deployments of `chat`. */
async function twoKeys(script: (call: Seen & { n: number }) => Reply, options: Parameters<typeof quota>[0] = {}, deployments = [{ endpoint: 'a', model: 'm0' }]) {
  const up = await upstream(script);
  current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKeys: ['sk-0', 'sk-1'] }], { chat: deployments }, [quota(options)], [up]);
  return { up, ...current };
}

const keysSeen = (seen: Seen[]) => seen.map((s) => `${s.model}:${s.key}`);

describe('key rotation', () => {
  it('a 429 rests that key for Retry-After; the other key serves meanwhile', async () => {
    let limited = true;
    const { pipeline, clock, up } = await twoKeys(({ key, model }) => (key === 'sk-0' && limited ? failure(429, 'slow down', undefined, { 'retry-after': '30' }) : { body: answer('ok', model) }));
    const first = await pipeline.chat(ask());
    expect(first.switchyard).toMatchObject({ attempts: 2 });
    limited = false;
    await pipeline.chat(ask());
    await clock.advance(29_000);
    await pipeline.chat(ask());
    expect(keysSeen(up.seen)).toEqual(['m0:sk-0', 'm0:sk-1', 'm0:sk-1', 'm0:sk-1']);
    await clock.advance(1_000);
    await pipeline.chat(ask());
    expect(up.seen.at(-1)?.key).toBe('sk-0');
  });

  it('a 429 without a retry header rests the key for rateLimitRestMs', async () => {
    const { pipeline, clock, up } = await twoKeys(({ key, n, model }) => (key === 'sk-0' && n === 1 ? failure(429) : { body: answer('ok', model) }), { rateLimitRestMs: 5_000 });
    await pipeline.chat(ask());
    await pipeline.chat(ask());
    await clock.advance(5_000);
    await pipeline.chat(ask());
    expect(up.seen.map((s) => s.key)).toEqual(['sk-0', 'sk-1', 'sk-1', 'sk-0']);
  });

  it('402 parks the key on every deployment of its endpoint, within the request and after it', async () => {
    // Candidates in order: m0#0, m0#1, m1#0, m1#1. m0#0 is out of balance and m0#1 is down:
    // m1#0 shares the broke key, so the next try is m1#1.
    const { pipeline, clock, up } = await twoKeys(
      ({ key, model }) => (key === 'sk-0' ? failure(402, 'insufficient balance') : model === 'm0' ? failure(503) : { body: answer('ok', model) }),
      { keyParkMs: 600_000 },
      [{ endpoint: 'a', model: 'm0' }, { endpoint: 'a', model: 'm1' }],
    );
    await pipeline.chat(ask());
    expect(keysSeen(up.seen)).toEqual(['m0:sk-0', 'm0:sk-1', 'm1:sk-1']);
    await clock.advance(599_000);
    await pipeline.chat(ask());
    expect(keysSeen(up.seen).slice(3)).toEqual(['m0:sk-1', 'm1:sk-1']);
    await clock.advance(1_000);
    await pipeline.chat(ask());
    expect(up.seen[5].key).toBe('sk-0');
  });

  it('429 insufficient_quota is out of balance, not a rate limit', async () => {
    const { pipeline, clock, up } = await twoKeys(({ key, model }) => (key === 'sk-0' ? failure(429, 'You exceeded your current quota', 'insufficient_quota', { 'retry-after': '1' }) : { body: answer('ok', model) }));
    await pipeline.chat(ask());
    await clock.advance(120_000);
    await pipeline.chat(ask());
    expect(up.seen.map((s) => s.key)).toEqual(['sk-0', 'sk-1', 'sk-1']);
  });

  it('when every key rests the request fails fast with a clear rate-limit error and no call', async () => {
    const { pipeline, up } = await twoKeys(() => failure(429, 'slow down', undefined, { 'retry-after': '20' }));
    await pipeline.chat(ask()).catch(() => undefined);
    expect(up.seen).toHaveLength(2);
    const err = await pipeline.chat(ask()).catch((e) => e);
    expect(err).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 20_000 });
    expect(err.message).toMatch(/every key for model "chat" is resting or paced: a\/m0#0 \(key a#0\) resting: rate-limited \(429\), 20s left; a\/m0#1/);
    expect(err.message).not.toContain('sk-');
    expect(up.seen).toHaveLength(2);
  });

  it('when every key is parked the error says so', async () => {
    const { pipeline } = await twoKeys(() => failure(402, 'no money'));
    await pipeline.chat(ask()).catch(() => undefined);
    const err = await pipeline.chat(ask()).catch((e) => e);
    expect(err).toMatchObject({ kind: 'payment', status: 402 });
    expect(err.message).toContain('a/m0#0 (key a#0) parked: out of balance (402)');
  });
});

describe('reading the key states', () => {
  /** A store that, like Redis, answers only with promises, and counts the reads of key states. */
  class RemoteLikeStore extends MemoryStateStore {
    override getManyNow = undefined as never;
    reads: string[][] = [];
    override get<T>(key: string): Promise<T | undefined> {
      if (/:(parked|resting|paced):/.test(key)) this.reads.push([key]);
      return super.get<T>(key);
    }
    override getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
      if (keys.some((key) => /:(parked|resting|paced):/.test(key))) this.reads.push([...keys]);
      return Promise.all(keys.map((key) => super.get<T>(key)));
    }
  }

  it('is one read of the store for every candidate and condition (one MGET on Redis), and still rotates', async () => {
    const up = await upstream(({ key, model }) => (key === 'sk-0' ? failure(429, 'slow down', undefined, { 'retry-after': '30' }) : { body: answer('ok', model) }));
    const clock = new VirtualClock(Date.UTC(2025, 0, 31, 23, 0, 0));
    const store = new RemoteLikeStore(clock);
    const pipeline = createPipeline({ endpoints: [{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKeys: ['sk-0', 'sk-1'] }], models: { chat: [{ endpoint: 'a', model: 'm0' }] }, plugins: [quota()], providers: [testProvider], clock, store });
    current = { pipeline, clock, close: async () => (await pipeline.close(), await up.server.close()) };
    await pipeline.chat(ask());
    await pipeline.chat(ask());
    expect(up.seen.map((s) => s.key)).toEqual(['sk-0', 'sk-1', 'sk-1']);
    expect(store.reads).toHaveLength(2);
    expect(store.reads[1]).toEqual(['quota:parked:a#0', 'quota:resting:a/m0#0', 'quota:paced:a/m0#0', 'quota:parked:a#1', 'quota:resting:a/m0#1', 'quota:paced:a/m0#1']);
  });
});

describe('pacing from x-ratelimit headers', () => {
  const low = { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20s', 'x-ratelimit-remaining-tokens': '90000' };

  it('deprioritises a key whose remaining requests ran out until the reset', async () => {
    const { pipeline, clock, up } = await twoKeys(({ key, n, model }) => ({ headers: key === 'sk-0' && n === 1 ? low : {}, body: answer('ok', model) }));
    await pipeline.chat(ask());
    await pipeline.chat(ask());
    await clock.advance(20_000);
    await pipeline.chat(ask());
    expect(up.seen.map((s) => s.key)).toEqual(['sk-0', 'sk-1', 'sk-0']);
  });

  it('in hold mode, skips the key until the reset and fails locally when nothing else is left', async () => {
    const up = await upstream(({ n, model }) => ({ headers: n === 1 ? { 'x-ratelimit-remaining-tokens': '500', 'x-ratelimit-reset-tokens': '6m0s' } : ({} as Record<string, string>), body: answer('ok', model) }));
    current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKey: 'sk-a' }], { chat: [{ endpoint: 'a', model: 'm0' }] }, [quota({ pacing: { mode: 'hold', maxHoldMs: 120_000 } })], [up]);
    await current.pipeline.chat(ask());
    const err = await current.pipeline.chat(ask()).catch((e) => e);
    expect(err).toMatchObject({ kind: 'rate-limit', retryAfterMs: 120_000 });
    expect(err.message).toContain('paced: vendor quota headers ran low');
    expect(up.seen).toHaveLength(1);
    await current.clock.advance(120_000);
    await current.pipeline.chat(ask());
    expect(up.seen).toHaveLength(2);
  });

  it('leaves keys alone while there is room, and can be switched off', async () => {
    const { pipeline, up } = await twoKeys(({ model }) => ({ headers: low, body: answer('ok', model) }), { pacing: false });
    await pipeline.chat(ask());
    await pipeline.chat(ask());
    expect(up.seen.map((s) => s.key)).toEqual(['sk-0', 'sk-0']);
  });
});
