/**
 * A client's body goes on as the bytes it sent with only the model member changed (and, for a
 * Chat Completions stream, the usage request added): the gateway splices the client's own bytes
 * instead of encoding its text again. The byte offsets must be right whatever characters come
 * before and after the edits; a body that was not valid UTF-8 goes on as its decoded text, as it
 * always did.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { raw, startGateway, stopAll } from './support/harness.js';
import { anthropicEvents, MODEL, pipelineOf } from './support/messages.js';

const vendors: http.Server[] = [];
afterEach(async () => {
  await Promise.all(vendors.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await stopAll();
});

/** A vendor that keeps the raw bytes of every request and answers with `answer`. */
async function byteVendor(answer: { type: string; body: string }): Promise<{ url: string; bodies: Buffer[] }> {
  const bodies: Buffer[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    bodies.push(Buffer.concat(chunks));
    res.writeHead(200, { 'content-type': answer.type });
    res.end(answer.body);
  });
  vendors.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

const SSE = 'text/event-stream; charset=utf-8';
const chatStream = ['{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}', '{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}']
  .map((data) => `data: ${data}\n\n`)
  .join('')
  .concat('data: [DONE]\n\n');

describe("the client's own bytes", () => {
  it('go on to a Messages vendor with the model spliced in, whatever characters surround it', async () => {
    const claude = await byteVendor({ type: SSE, body: anthropicEvents({ text: 'ok' }) });
    const { origin } = await startGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]));
    for (const [before, after] of [['', ''], ['é and 日本語', ''], ['😀', 'ü 😀'], ['plain', 'Ωmega']]) {
      const text = (model: string) => `{"system":"${before}","model": "${model}","max_tokens":64,"messages":[{"role":"user","content":"${after}"}],"stream":true}`;
      const res = await raw(origin, '/v1/messages', { body: Buffer.from(text(MODEL)), headers: { 'anthropic-version': '2023-06-01' } });
      expect(res.status).toBe(200);
      expect(claude.bodies.at(-1)!.toString('utf8')).toBe(text('claude-sonnet-4-5-20250929').replace('"model": "', '"model":"'));
    }
  });

  it('go on to a Chat Completions vendor with the model spliced in and the usage request added before the closing brace', async () => {
    const openai = await byteVendor({ type: SSE, body: chatStream });
    const { origin } = await startGateway(pipelineOf([{ name: 'openai', kind: 'openai', url: openai.url }]));
    const res = await raw(origin, '/v1/chat/completions', { body: Buffer.from(`{"messages":[{"role":"user","content":"日本語 😀"}],"model":"${MODEL}","stream":true,"user":"Zoë"}`) });
    expect(res.status).toBe(200);
    expect(openai.bodies[0]!.toString('utf8')).toBe('{"messages":[{"role":"user","content":"日本語 😀"}],"model":"gpt-4.1","stream":true,"user":"Zoë","stream_options":{"include_usage":true}}');
  });

  it('are not sent when they were not valid UTF-8: the vendor gets the text the gateway read, as before', async () => {
    const claude = await byteVendor({ type: SSE, body: anthropicEvents({ text: 'ok' }) });
    const { origin } = await startGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]));
    const body = Buffer.concat([Buffer.from(`{"model":"${MODEL}","max_tokens":64,"messages":[{"role":"user","content":"a`), Buffer.from([0xff, 0xfe]), Buffer.from('b"}],"stream":true}')]);
    const res = await raw(origin, '/v1/messages', { body, headers: { 'anthropic-version': '2023-06-01' } });
    expect(res.status).toBe(200);
    expect(claude.bodies[0]!.toString('utf8')).toBe('{"model":"claude-sonnet-4-5-20250929","max_tokens":64,"messages":[{"role":"user","content":"a\uFFFD\uFFFDb"}],"stream":true}');
  });
});
