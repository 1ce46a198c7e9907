/** The loopback fault server: socket-level faults through real sockets and the core transport. */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { createPipeline, runWithVirtualTime, VirtualClock, type StreamPart } from '@switchyard/core';
import { createUndiciTransport } from '@switchyard/core/config';
import { SseParser } from '@switchyard/core/wire';
import { healthyText, startFaultServer, type FaultServer, type FaultServerOptions } from '../src/index.js';
import { testProvider } from '../../core/test/support/test-provider.js';

const servers: FaultServer[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: FaultServerOptions): Promise<FaultServer> {
  const server = await startFaultServer(options);
  servers.push(server);
  return server;
}

function agent(): Agent {
  const a = new Agent();
  agents.push(a);
  return a;
}

const chatBody = (stream: boolean) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream });
const post = (server: FaultServer, stream = true, signal?: AbortSignal) =>
  request(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(stream), dispatcher: agent(), signal });

async function readAll(body: AsyncIterable<Uint8Array>): Promise<{ text: string; error?: unknown }> {
  let text = '';
  try {
    for await (const chunk of body) text += Buffer.from(chunk).toString();
    return { text };
  } catch (error) {
    return { text, error };
  }
}

describe('fault server: socket-level faults', () => {
  it('resets the TCP connection before any header', async () => {
    const server = await start({ vendor: 'openai', scenario: 'reset' });
    await expect(post(server)).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|UND_ERR_SOCKET/) });
    const transport = createUndiciTransport({ dispatcher: agent() });
    const failure = await transport
      .request({ url: `${server.url}/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(false), signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: 'network' });
    expect(server.requests.map((r) => r.outcome)).toEqual(['reset', 'reset']);
  });

  it('cuts the body mid-chunk with no chunk terminator: an error, not a clean end', async () => {
    const server = await start({ vendor: 'openai', scenario: 'stream-cut', options: { afterTokens: 2 } });
    const res = await post(server);
    expect(res.statusCode).toBe(200);
    const { text, error } = await readAll(res.body);
    expect(error).toMatchObject({ code: 'UND_ERR_SOCKET' });
    const parser = new SseParser();
    const contents = parser.push(text).map((e) => JSON.parse(e.data).choices[0].delta.content ?? '');
    expect(contents.join('')).toBe(healthyText(2));
    // What arrived ends inside an event: half of the third token's chunk.
    expect(text.endsWith('\n\n')).toBe(false);
  });

  it('stalls with the socket open until the client gives up', async () => {
    const server = await start({ vendor: 'anthropic', scenario: 'stream-stall', options: { afterTokens: 1 } });
    const controller = new AbortController();
    const res = await request(`${server.url}/messages`, { method: 'POST', body: JSON.stringify({ model: 'claude', messages: [], stream: true }), dispatcher: agent(), signal: controller.signal });
    const iterator = res.body[Symbol.asyncIterator]();
    let text = '';
    while (!text.includes('text_delta')) text += Buffer.from((await iterator.next()).value as Uint8Array).toString();
    const next = iterator.next();
    const raced = await Promise.race([next.then(() => 'data'), new Promise((r) => setTimeout(() => r('silent'), 50))]);
    expect(raced).toBe('silent');
    controller.abort(new Error('gave up'));
    await expect(next).rejects.toThrow('gave up');
  });

  it('switches scenario at runtime and records every request', async () => {
    const server = await start({ vendor: 'openai' });
    expect((await post(server, false)).statusCode).toBe(200);
    server.setScenario('unavailable');
    expect((await post(server, false)).statusCode).toBe(503);
    server.setScenario('rate-limited', { retryAfterS: 1, times: 1 });
    const limited = await post(server, false);
    expect([limited.statusCode, limited.headers['retry-after']]).toEqual([429, '1']);
    // `times` used up: the vendor answers normally again.
    expect((await post(server, false)).statusCode).toBe(200);
    expect(server.requests.map((r) => [r.scenario, r.outcome])).toEqual([
      ['ok', 200],
      ['unavailable', 503],
      ['rate-limited', 429],
      ['rate-limited', 200],
    ]);
    expect(server.requests[0]!.body).toMatchObject({ model: 'gpt-4o-mini' });
    expect([server.fault.seen, server.fault.answered]).toEqual([2, 1]);
  });

  it('serves Gemini’s URL scheme with CRLF-framed SSE, and 404s other paths', async () => {
    const server = await start({ vendor: 'gemini', options: { tokens: 5 } });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1beta$/);
    const res = await request(`${server.url}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: 'POST', body: '{"contents":[]}', dispatcher: agent() });
    const { text } = await readAll(res.body);
    expect(text).toContain('\r\n\r\n');
    expect(text).toContain('"finishReason":"STOP"');
    const missing = await request(`${server.url}/nothing`, { method: 'POST', body: '{}', dispatcher: agent() });
    expect(missing.statusCode).toBe(404);
    await missing.body.dump();
  });
});

describe('fault server under the production pipeline (virtual time)', () => {
  async function pipelineOver(primary: FaultServerOptions) {
    const clock = new VirtualClock();
    const a = await start({ ...primary, clock });
    const b = await start({ vendor: 'openai', clock });
    const pipeline = createPipeline({
      endpoints: [
        { name: 'a', provider: 'test', baseUrl: a.url },
        { name: 'b', provider: 'test', baseUrl: b.url },
      ],
      models: { chat: [{ endpoint: 'a', model: 'm' }, { endpoint: 'b', model: 'm' }] },
      providers: [testProvider],
      clock,
    });
    const run = <T>(work: Promise<T>) => runWithVirtualTime(clock, work, { stepMs: 250 });
    return { a, b, pipeline, run, clock };
  }
  const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

  async function drain(stream: AsyncIterable<StreamPart>) {
    const parts: StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    return parts;
  }

  it('fails over from a TCP reset', async () => {
    const { a, b, pipeline } = await pipelineOver({ vendor: 'openai', scenario: 'reset' });
    const r = await pipeline.chat(ask);
    expect(r.switchyard).toMatchObject({ endpoint: 'b', attempts: 2 });
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
    await pipeline.close();
  });

  it('moves on from a slow first token within the TTFT limit', async () => {
    const { a, pipeline, run, clock } = await pipelineOver({ vendor: 'openai', scenario: 'slow-first-token', options: { firstTokenMs: 15_000 } });
    const started = clock.now();
    const s = await run(pipeline.stream(ask));
    const full = await run(s.collect());
    expect(full.choices[0].message.content).toBe(healthyText());
    expect(full.switchyard).toMatchObject({ endpoint: 'b' });
    expect(clock.now() - started).toBeLessThan(15_000);
    expect(a.fault.answered).toBe(1);
    await pipeline.close();
  });

  it('ends a committed stream that stalls with an idle-timeout error', async () => {
    const { b, pipeline, run } = await pipelineOver({ vendor: 'openai', scenario: 'stream-stall', options: { afterTokens: 2 } });
    const parts = await run(drain(await run(pipeline.stream(ask))));
    const text = parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
    expect(text).toBe(healthyText(2));
    const last = parts.at(-1);
    expect(last?.type === 'error' && last.error.kind).toBe('idle-timeout');
    expect(b.requests).toHaveLength(0);
    await pipeline.close();
  });

  it('ends a committed stream cut mid-chunk with an error, never a truncated success', async () => {
    const { pipeline, run } = await pipelineOver({ vendor: 'openai', scenario: 'stream-cut', options: { afterTokens: 3, tokenDelay: 20 } });
    const parts = await run(drain(await run(pipeline.stream(ask))));
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    expect(parts.at(-1)?.type).toBe('error');
    await pipeline.close();
  });
});
