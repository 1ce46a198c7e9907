/** Loopback webhook receivers (real HTTP) for the channel tests. */
import type http from 'node:http';
import { createPipeline, seededRandom, VirtualClock, type Pipeline, type PipelineOptions } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { openaiProvider } from '@switchyard/provider-openai';
import { alerts, getAlerts, type AlertsOptionsInput } from '../src/index.js';

export { startLoopback, type Loopback };

const running: { close(): Promise<void> }[] = [];

export async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((r) => r.close().catch(() => undefined)));
}

/** A receiver that answers `status` (default 200) to every notice. */
export async function receiver(status = 200, reply = '{"ok":true}'): Promise<Loopback & { bodies(): any[]; root: string }> {
  const server = await startLoopback((_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(reply);
  });
  running.push(server);
  return Object.assign(server, { bodies: () => server.requests.map((r) => JSON.parse(r.body)), root: server.url.replace(/\/v1$/, '') });
}

/** A receiver that never answers: it holds every connection open. */
export async function hangingReceiver(): Promise<Loopback & { root: string }> {
  const server = await startLoopback(() => new Promise<void>(() => undefined));
  running.push(server);
  return Object.assign(server, { root: server.url.replace(/\/v1$/, '') });
}

export function pipelineWithAlerts(options: AlertsOptionsInput, extra: Partial<PipelineOptions> = {}): { pipeline: Pipeline; clock: VirtualClock; settled(): Promise<void> } {
  const clock = (extra.clock as VirtualClock | undefined) ?? new VirtualClock(Date.UTC(2026, 11, 1, 12));
  const pipeline = createPipeline({
    endpoints: [{ name: 'primary', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1' }],
    models: { chat: [{ endpoint: 'primary', model: 'gpt-x' }] },
    clock,
    // Weighted picks and jitter from a seeded source: the same alerts on every run.
    random: seededRandom(7),
    providers: [openaiProvider],
    ...extra,
    plugins: [...(extra.plugins ?? []), alerts(options)],
  });
  running.push(pipeline);
  return { pipeline, clock, settled: () => getAlerts(pipeline)!.settled() };
}
