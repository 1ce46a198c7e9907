/**
 * The example dialect through the official `ollama` client: chat, a streamed generate (NDJSON)
 * and the model list, served by the gateway over a loopback OpenAI-style vendor.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { Ollama } from 'ollama';
import { createPipeline } from '@switchyard/core';
import { createGateway, DEFAULT_DIALECTS, type Gateway } from '@switchyard/gateway';
import { openaiProvider } from '@switchyard/provider-openai';
import { ollamaDialect } from '../src/index.js';

const KEY = 'gw-ollama-key-1';
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

/** A Chat Completions vendor that answers "Hello from upstream." (in pieces when asked to stream). */
async function vendor(): Promise<{ url: string; bodies: any[] }> {
  const bodies: any[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    bodies.push(body);
    const usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from upstream.' }, finish_reason: 'stop' }], usage }));
    }
    const chunk = (delta: object, finish: string | null = null, extra = {}) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk({ role: 'assistant', content: '' }) + ['Hello ', 'from ', 'upstream.'].map((t) => chunk({ content: t })).join('') + chunk({}, 'stop', { usage }) + 'data: [DONE]\n\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push({ close: () => new Promise((r) => server.close(r)) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

async function ollamaClient() {
  const upstream = await vendor();
  const pipeline = createPipeline({ endpoints: [{ name: 'up', provider: 'openai', baseUrl: upstream.url, apiKey: 'sk-vendor' }], models: { llama3: [{ endpoint: 'up', model: 'gpt-x' }] }, providers: [openaiProvider] });
  const gateway: Gateway = createGateway({ pipeline, dialects: [...DEFAULT_DIALECTS, ollamaDialect], server: { host: '127.0.0.1', port: 0, apiKeys: [KEY] } });
  open.push(gateway);
  const { url } = await gateway.listen();
  return { ollama: new Ollama({ host: url.replace(/\/v1$/, ''), headers: { authorization: `Bearer ${KEY}` } }), upstream };
}

it('chat: one answer with its counts, the options translated for the vendor', async () => {
  const { ollama, upstream } = await ollamaClient();
  const answer = await ollama.chat({ model: 'llama3', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], options: { temperature: 0.1, num_predict: 32 } });
  expect(answer.message).toMatchObject({ role: 'assistant', content: 'Hello from upstream.' });
  expect(answer).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 9, eval_count: 4 });
  expect(upstream.bodies[0]).toMatchObject({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], temperature: 0.1, max_completion_tokens: 32 });
});

it('generate, streamed: NDJSON pieces, then the closing line', async () => {
  const { ollama } = await ollamaClient();
  const pieces: string[] = [];
  let last: { done: boolean; done_reason?: string } | undefined;
  for await (const part of await ollama.generate({ model: 'llama3', prompt: 'Hi', system: 'Be brief.', stream: true })) {
    pieces.push(part.response ?? '');
    last = part;
  }
  expect(pieces.join('')).toBe('Hello from upstream.');
  expect(pieces.length).toBeGreaterThan(2);
  expect(last).toMatchObject({ done: true, done_reason: 'stop' });
});

it('list: the gateway’s models; an unknown model is an Ollama error', async () => {
  const { ollama } = await ollamaClient();
  expect((await ollama.list()).models.map((m) => m.name)).toEqual(['llama3']);
  await expect(ollama.chat({ model: 'nope', messages: [{ role: 'user', content: 'Hi' }], stream: false })).rejects.toThrow(/unknown model "nope"/);
});
