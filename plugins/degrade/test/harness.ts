/** Three loopback upstreams whose health the test switches: primary, cheap, local. */
import { createPipeline, VirtualClock, type ChatRequest, type Pipeline, type Plugin, type RandomSource, type StateStore } from '@switchyard/core';
import { sseBody, startLoopback, textChunks, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';

export type Health = 'up' | 'down' | 'bad-request';

export interface Upstream {
  server: Loopback;
  health: Health;
}

async function upstream(name: string): Promise<Upstream> {
  const u: Upstream = { health: 'up', server: undefined as never };
  u.server = await startLoopback((_req, res, body) => {
    const { model, stream } = JSON.parse(body) as { model: string; stream?: boolean };
    if (u.health !== 'up') {
      res.writeHead(u.health === 'down' ? 503 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: u.health === 'down' ? `${name} overloaded` : 'invalid tool schema' } }));
      return;
    }
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody(textChunks([`${name} `, 'says hi'])));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: `cmpl-${name}`, object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: `${name} says hi` }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
  });
  return u;
}

export interface Rig {
  pipeline: Pipeline;
  clock: VirtualClock;
  primary: Upstream;
  cheap: Upstream;
  local: Upstream;
  close(): Promise<void>;
}

export async function rig(plugins: (ups: { primary: Upstream; cheap: Upstream; local: Upstream }) => Plugin[], options: { random?: RandomSource; models?: Parameters<typeof createPipeline>[0]['models']; store?: StateStore } = {}): Promise<Rig> {
  const [primary, cheap, local] = await Promise.all([upstream('primary'), upstream('cheap'), upstream('local')]);
  const clock = new VirtualClock(Date.UTC(2025, 2, 1));
  let pipeline: Pipeline;
  try {
    pipeline = createPipeline({
    endpoints: [
      { name: 'openai', provider: 'test', baseUrl: primary.server.url, apiKey: 'sk-primary-secret-0123456789' },
      { name: 'cheap', provider: 'test', baseUrl: cheap.server.url, apiKey: 'sk-cheap-secret-0123456789' },
      { name: 'ollama', provider: 'test', baseUrl: local.server.url },
    ],
    models: options.models ?? { chat: [{ endpoint: 'openai', model: 'gpt-4o' }], mini: [{ endpoint: 'cheap', model: 'gpt-4o-mini' }] },
    plugins: plugins({ primary, cheap, local }),
    providers: [testProvider],
    clock,
    random: options.random,
    store: options.store,
    });
  } catch (error) {
    await Promise.all([primary, cheap, local].map((u) => u.server.close()));
    throw error;
  }
  return {
    pipeline,
    clock,
    primary,
    cheap,
    local,
    async close() {
      await pipeline.close();
      await Promise.all([primary, cheap, local].map((u) => u.server.close()));
    },
  };
}

export const ask = (text = 'hi', extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'chat', messages: [{ role: 'user', content: text }], ...extra });
