/** Loopback upstreams with scripted answers and a pipeline on a virtual clock. */
import { createPipeline, VirtualClock, type ChatRequest, type EndpointConfig, type ModelsConfig, type Pipeline, type Plugin } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Seen {
  key: string;
  model: string;
}

export interface Upstream {
  server: Loopback;
  seen: Seen[];
}

/** Answers with `script(seen)`; `seen` records which key and upstream model each request used. */
export async function upstream(script: (call: Seen & { n: number }) => Reply = () => ({})): Promise<Upstream> {
  const seen: Seen[] = [];
  const server = await startLoopback((req, res, body) => {
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const model = JSON.parse(body).model as string;
    seen.push({ key, model });
    const reply = script({ key, model, n: seen.length });
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body ?? answer('ok', model)));
  });
  return { server, seen };
}

export function answer(text: string, model: string, usage = { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 }): unknown {
  return { id: 'cmpl', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage };
}

export function failure(status: number, message = 'upstream says no', code?: string, headers?: Record<string, string>): Reply {
  return { status, headers, body: { error: { message, code } } };
}

export interface Rig {
  pipeline: Pipeline;
  clock: VirtualClock;
  close(): Promise<void>;
}

export function rig(endpoints: EndpointConfig[], models: ModelsConfig, plugins: Plugin[], servers: Upstream[]): Rig {
  const clock = new VirtualClock(Date.UTC(2025, 0, 31, 23, 0, 0));
  const pipeline = createPipeline({ endpoints, models, plugins, providers: [testProvider], clock });
  return {
    pipeline,
    clock,
    async close() {
      await pipeline.close();
      await Promise.all(servers.map((s) => s.server.close()));
    },
  };
}

export const ask = (text = 'hi', extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'chat', messages: [{ role: 'user', content: text }], ...extra });

/** An upstream that holds every request until `gate` opens, then answers 6 tokens; `waiting()` counts those held. */
export async function gatedUpstream(gate: Promise<void>): Promise<Upstream & { waiting(): number }> {
  const seen: Seen[] = [];
  const server = await startLoopback(async (req, res, body) => {
    const model = JSON.parse(body).model as string;
    seen.push({ key: String(req.headers.authorization ?? ''), model });
    await gate;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer('ok', model)));
  });
  return { server, seen, waiting: () => seen.length };
}
