/** A pipeline over loopback servers with the test codec, for the core's own tests. */
import { createPipeline, type PipelineOptions, type Pipeline } from '../../src/index.js';
import { testProvider } from './test-provider.js';
import { startLoopback, type Handler, type Loopback } from './loopback.js';

export interface Fixture {
  pipeline: Pipeline;
  servers: Loopback[];
  close(): Promise<void>;
}

/** One loopback upstream per handler, named u0, u1, …, all behind the logical model `chat`. */
export async function pipelineOver(handlers: Handler[], options: Partial<PipelineOptions> = {}): Promise<Fixture> {
  const servers = await Promise.all(handlers.map((h) => startLoopback(h)));
  const pipeline = createPipeline({
    endpoints: servers.map((s, i) => ({ name: `u${i}`, provider: 'test', baseUrl: s.url, apiKey: `sk-test-secret-key-${i}-abcdefghijkl` })),
    models: { chat: servers.map((_, i) => ({ endpoint: `u${i}`, model: `m${i}` })) },
    ...options,
    providers: [testProvider, ...(options.providers ?? [])],
  });
  return {
    pipeline,
    servers,
    async close() {
      await pipeline.close();
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}

export const hello = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
