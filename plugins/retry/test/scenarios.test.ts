/**
 * Retry scenarios through the production path: createPipeline → undici → real loopback
 * sockets, on virtual time (runWithVirtualTime lets socket I/O and virtual timers interleave).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type http from 'node:http';
import { createPipeline, runWithVirtualTime, seededRandom, VirtualClock, type ChatResponse } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { completion, sseBody, startLoopback, textChunks, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { retry, type RetryOptionsInput } from '../src/index.js';

const servers: Loopback[] = [];
const pipelines: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pipelines.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Reply = (req: http.IncomingMessage, res: http.ServerResponse, n: number, stream: boolean) => void;

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function answer(res: http.ServerResponse, stream: boolean, text = 'ok') {
  if (!stream) return json(res, 200, completion(text));
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(sseBody(textChunks([text])));
}

async function upstream(clock: VirtualClock, reply: Reply) {
  const arrivals: number[] = [];
  const server = await startLoopback((req, res, body) => {
    arrivals.push(clock.now());
    reply(req, res, arrivals.length, JSON.parse(body).stream === true);
  });
  servers.push(server);
  return { server, arrivals };
}

async function setup(primary: Reply, backup: Reply = (_q, res, _n, stream) => answer(res, stream, 'from backup'), options: RetryOptionsInput = {}) {
  const clock = new VirtualClock(0);
  const a = await upstream(clock, primary);
  const b = await upstream(clock, backup);
  const pipeline = createPipeline({
    endpoints: [
      { name: 'a', provider: 'test', baseUrl: a.server.url },
      { name: 'b', provider: 'test', baseUrl: b.server.url },
    ],
    models: { chat: [{ endpoint: 'a', model: 'x' }, { endpoint: 'b', model: 'y' }] },
    providers: [testProvider],
    plugins: [retry(options)],
    clock,
    random: seededRandom(42),
  });
  pipelines.push(pipeline);
  const request = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
  const chat = () => runWithVirtualTime(clock, pipeline.chat(request), { stepMs: 20 });
  const stream = () => runWithVirtualTime(clock, pipeline.stream({ ...request, stream: true }).then((s) => s.collect()), { stepMs: 20 });
  return { clock, a: a.arrivals, b: b.arrivals, pipeline, chat, stream };
}

const text = (r: ChatResponse) => r.choices[0].message.content;

describe('retry scenarios over real sockets', () => {
  it('429 with Retry-After: 2 is retried no sooner than 2 s, at most twice in the first 1.5 s', async () => {
    const { a, b, chat } = await setup((_q, res, n, stream) => (n === 1 ? json(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '2' }) : answer(res, stream, 'after wait')));
    expect(text(await chat())).toBe('after wait');
    expect(a).toHaveLength(2);
    expect(a[1] - a[0]).toBeGreaterThanOrEqual(2000);
    expect(a.filter((t) => t - a[0] < 1500).length).toBeLessThanOrEqual(2);
    expect(b).toHaveLength(0);
  });

  it('a persistent 429 is never hammered (≤ 4 attempts in 3 s) and fails over', async () => {
    const { a, b, chat } = await setup((_q, res) => json(res, 429, { error: { message: 'Rate limit reached' } }));
    expect(text(await chat())).toBe('from backup');
    expect(a.filter((t) => t - a[0] <= 3000).length).toBeLessThanOrEqual(4);
    expect(a.length).toBeGreaterThanOrEqual(1);
    expect(b).toHaveLength(1);
  });

  it('a 500 once is retried on the same endpoint and succeeds (chat and stream)', async () => {
    const { a, b, chat, stream } = await setup((_q, res, n, s) => (n % 2 === 1 ? json(res, 500, { error: { message: 'internal' } }) : answer(res, s, 'second try')));
    expect(text(await chat())).toBe('second try');
    expect((await stream()).choices[0].message.content).toBe('second try');
    expect(a).toHaveLength(4);
    expect(b).toHaveLength(0);
    expect(a[1] - a[0]).toBeGreaterThanOrEqual(100);
    expect(a[1] - a[0]).toBeLessThanOrEqual(500 + 200);
  });

  it('a persistent 503 fails over after one retry, well inside the deadline', async () => {
    const { a, b, chat, clock } = await setup((_q, res) => json(res, 503, { error: { message: 'overloaded' } }));
    expect(text(await chat())).toBe('from backup');
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(1);
    expect(clock.now()).toBeLessThan(2_000);
  });

  it('a TCP reset before the headers is retried on the same endpoint', async () => {
    const { a, b, chat } = await setup((req, res, n, stream) => (n === 1 ? req.socket.destroy() : answer(res, stream, 'after reset')));
    expect(text(await chat())).toBe('after reset');
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(0);
  });

  it('resets on every attempt fail over to the backup', async () => {
    const { a, b, chat } = await setup((_q, res) => res.destroy());
    expect(text(await chat())).toBe('from backup');
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(1);
  });

  it('context-length is sent exactly once to that model and its reason reaches the caller', async () => {
    const { a, b, chat } = await setup((_q, res) => json(res, 400, { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } }));
    const error = await chat().catch((e) => e);
    expect(error.kind).toBe('context-length');
    expect(error.message).toContain('maximum context length is 8192');
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(0);
  });
});
