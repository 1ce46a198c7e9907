import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, definePlugin, VirtualClock, type ChatRequest, type Pipeline, type Plugin, type StreamPart } from '@switchyard/core';
import { completion, sseBody, startLoopback, textChunks, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { cache, getCacheStats } from '../src/index.js';

type Mode = 'ok' | 'down' | 'bad-request' | 'cut';

interface Rig {
  pipeline: Pipeline;
  clock: VirtualClock;
  server: Loopback;
  setMode(mode: Mode): void;
}

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function rig(plugins: Plugin[]): Promise<Rig> {
  let mode: Mode = 'ok';
  let n = 0;
  server = await startLoopback((_req, res, body) => {
    n += 1;
    if (mode === 'down' || mode === 'bad-request') {
      res.writeHead(mode === 'down' ? 503 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: mode === 'down' ? 'overloaded' : 'bad tool schema' } }));
      return;
    }
    if (JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody(textChunks([`answer `, `${n}`], mode !== 'cut'), mode !== 'cut'));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(`answer ${n}`, 'up-model')));
  });
  const clock = new VirtualClock();
  const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'test', baseUrl: server.url }], models: { chat: [{ endpoint: 'up', model: 'up-model' }] }, plugins, providers: [testProvider], clock });
  return { pipeline, clock, server, setMode: (m) => (mode = m) };
}

const ask = (text = 'hi', extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'chat', messages: [{ role: 'user', content: text }], ...extra });
const text = (r: { choices: { message: { content: string | null } }[] }) => r.choices[0].message.content;

async function collectParts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const p of stream) parts.push(p);
  return parts;
}

describe('exact-match cache', () => {
  it('answers an equal request from the cache and a different one from upstream', async () => {
    const { pipeline, server: up } = await rig([cache()]);
    const first = await pipeline.chat(ask());
    const again = await pipeline.chat(ask('hi', { user: 'someone-else', metadata: { trace: 'x' }, switchyard: { tags: { team: 'a' } } }));
    expect(text(again)).toBe(text(first));
    expect(again.switchyard).toMatchObject({ cached: true, attempts: 0, endpoint: 'up', deployment: 'up/up-model' });
    expect(first.switchyard?.cached).toBeUndefined();
    expect(text(await pipeline.chat(ask('hello')))).toBe('answer 2');
    expect(text(await pipeline.chat(ask('hi', { temperature: 0.2 })))).toBe('answer 3');
    expect(up.requests).toHaveLength(3);
    expect(getCacheStats(pipeline)).toMatchObject({ hits: 1, misses: 3, stores: 3 });
  });

  it('replays a cached answer as a stream for a stream request', async () => {
    const { pipeline, server: up } = await rig([cache()]);
    await pipeline.chat(ask());
    const stream = await pipeline.stream(ask());
    expect(stream.info).toMatchObject({ cached: true });
    const parts = await collectParts(stream);
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text).join('')).toBe('answer 1');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(up.requests).toHaveLength(1);
  });

  it('stores a streamed answer once it finished, and serves it to a non-stream request', async () => {
    const { pipeline, server: up } = await rig([cache()]);
    const streamed = await (await pipeline.stream(ask())).collect();
    expect(text(streamed)).toBe('answer 1');
    const hit = await pipeline.chat(ask());
    expect(text(hit)).toBe('answer 1');
    expect(hit.switchyard?.cached).toBe(true);
    expect(up.requests).toHaveLength(1);
  });

  it('never stores a cut stream', async () => {
    const { pipeline, server: up, setMode } = await rig([cache()]);
    setMode('cut');
    await (await pipeline.stream(ask())).collect().catch(() => undefined);
    setMode('ok');
    expect(text(await pipeline.chat(ask()))).toBe('answer 2');
    expect(up.requests).toHaveLength(2);
  });

  it('expires after ttlMs', async () => {
    const { pipeline, clock } = await rig([cache({ ttlMs: 10_000 })]);
    await pipeline.chat(ask());
    await clock.advance(9_999);
    expect(text(await pipeline.chat(ask()))).toBe('answer 1');
    await clock.advance(1);
    expect(text(await pipeline.chat(ask()))).toBe('answer 2');
  });

  it('switchyard.cache: false neither reads nor writes the cache', async () => {
    const { pipeline } = await rig([cache()]);
    await pipeline.chat(ask());
    expect(text(await pipeline.chat(ask('hi', { switchyard: { cache: false } })))).toBe('answer 2');
    await pipeline.chat(ask('other', { switchyard: { cache: false } }));
    expect(text(await pipeline.chat(ask('other')))).toBe('answer 4');
  });

  it('does not store degraded answers', async () => {
    const canned = definePlugin({
      name: 'canned',
      apply(p) {
        p.hooks.degrade.tapPromise('canned', async () => ({ level: 'canned', response: { id: 'c', object: 'chat.completion', created: 1, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: 'sorry' }, finish_reason: 'stop' }] } }));
      },
    });
    const { pipeline, setMode } = await rig([cache(), canned()]);
    setMode('down');
    expect(text(await pipeline.chat(ask()))).toBe('sorry');
    setMode('ok');
    expect(text(await pipeline.chat(ask()))).toBe('answer 2');
  });

  it('can keep its entries in the pipeline StateStore', async () => {
    const { pipeline, server: up } = await rig([cache({ store: 'state-store' })]);
    await pipeline.chat(ask());
    expect((await pipeline.chat(ask())).switchyard?.cached).toBe(true);
    expect(up.requests).toHaveLength(1);
  });

  it('rejects bad options with a coded error', () => {
    expect(() => cache({ ttlMs: -1 })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'ttlMs' }));
  });
});

describe('serve-stale fallback', () => {
  it('serves an expired answer, labelled stale, only when every candidate failed', async () => {
    const { pipeline, clock, setMode } = await rig([cache({ ttlMs: 1_000, staleTtlMs: 60_000 })]);
    await pipeline.chat(ask());
    await clock.advance(5_000);
    // Upstream healthy: a fresh answer, not the stale one.
    expect(text(await pipeline.chat(ask()))).toBe('answer 2');
    await clock.advance(5_000);
    setMode('down');
    const stale = await pipeline.chat(ask());
    expect(text(stale)).toBe('answer 2');
    expect(stale.switchyard).toMatchObject({ stale: true, cached: true, degraded: 'stale-cache', attempts: 1 });
    const streamed = await pipeline.stream(ask());
    expect(streamed.info).toMatchObject({ stale: true, degraded: 'stale-cache' });
    expect(text(await streamed.collect())).toBe('answer 2');
    expect(getCacheStats(pipeline).staleServed).toBe(2);
  });

  it('does not serve beyond staleTtlMs, for a rejected request, or for an unknown request', async () => {
    const { pipeline, clock, setMode } = await rig([cache({ ttlMs: 1_000, staleTtlMs: 10_000 })]);
    await pipeline.chat(ask());
    setMode('bad-request');
    await clock.advance(2_000);
    await expect(pipeline.chat(ask())).rejects.toMatchObject({ kind: 'bad-request' });
    setMode('down');
    await expect(pipeline.chat(ask('never seen'))).rejects.toMatchObject({ kind: 'all-candidates-failed' });
    await clock.advance(9_000);
    await expect(pipeline.chat(ask())).rejects.toMatchObject({ kind: 'all-candidates-failed' });
  });
});
