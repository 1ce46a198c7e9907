/**
 * CPU the metrics plugin adds per request (target: under 5 µs). Two measurements:
 * 1. the plugin's listeners alone: the events of one request (start, one attempt with usage,
 *    end) emitted on a real pipeline's bus, timed with process.cpuUsage();
 * 2. end to end: pipeline.chat() over an in-process transport with and without the plugin
 *    (interleaved runs, median), which includes what the events cost the core to emit.
 * Run: pnpm bench:metrics
 */
import { Registry } from 'prom-client';
import { candidateRef, createPipeline } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { metrics } from '@switchyard/plugin-metrics';
import { cpuMicros, cpuMicrosAsync, median, memoryTransport } from './in-process.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const answer = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } });

const build = (withMetrics: boolean) =>
  createPipeline({
    endpoints: [{ name: 'local', provider: 'openai', baseUrl: 'http://local.test/v1', apiKey: 'sk-bench' }],
    models: { chat: [{ endpoint: 'local', model: 'bench-model', price: { input: 1, output: 2 } }] },
    providers: [openaiProvider],
    transport: memoryTransport(answer),
    plugins: withMetrics ? [metrics({ registry: new Registry() })] : [],
  });

async function main() {
  const pipeline = build(true);
  const bare = build(false);
  const candidate = candidateRef(pipeline.candidatesFor('chat')[0]);
  const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };
  const attempt = { attempt: 1, candidate, ok: true, outcome: 'success' as const, latencyMs: 120, usage, phase: 'pre-commit' as const, stream: false, initiator: 'core' };
  // The events of one request, emitted the way the core emits them (payload objects included).
  const oneRequest = (p: typeof pipeline, i: number) => {
    const requestId = `r${i}`;
    p.events.emit('request:start', { requestId, model: 'chat', stream: false });
    p.events.emit('attempt:end', { ...attempt, requestId });
    p.events.emit('request:end', { requestId, ok: true, model: 'chat', stream: false, attempts: [attempt], latencyMs: 130 });
  };
  for (let i = 0; i < 20_000; i++) {
    oneRequest(pipeline, i);
    oneRequest(bare, i);
  }
  const listeners: number[] = [];
  const n = CALLS * 5;
  for (let r = 0; r < RUNS; r++) {
    const withListeners = cpuMicros(() => {
      for (let i = 0; i < n; i++) oneRequest(pipeline, i);
    });
    const withoutListeners = cpuMicros(() => {
      for (let i = 0; i < n; i++) oneRequest(bare, i);
    });
    listeners.push((withListeners - withoutListeners) / n);
  }
  await bare.close();

  const plain = build(false);
  const request = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
  const runChats = (p: typeof pipeline) => async () => {
    for (let i = 0; i < CALLS; i++) await p.chat(request);
  };
  for (let i = 0; i < 2000; i++) {
    await plain.chat(request);
    await pipeline.chat(request);
  }
  const without: number[] = [];
  const withPlugin: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    without.push((await cpuMicrosAsync(runChats(plain))) / CALLS);
    withPlugin.push((await cpuMicrosAsync(runChats(pipeline))) / CALLS);
  }
  const registry = (pipeline.plugins[0].options as { registry: Registry }).registry;
  const registryText = await registry.metrics();
  const scrapeStart = process.cpuUsage();
  for (let i = 0; i < 200; i++) await registry.metrics();
  const scrapeUsed = process.cpuUsage(scrapeStart);

  console.log(`metrics plugin, CPU per request (median of ${RUNS} runs, Node ${process.version})\n`);
  console.log('| measurement | µs CPU per request |');
  console.log('|---|---:|');
  console.log(`| the plugin's listeners for one request (start, attempt with usage, end), emission cost subtracted | ${median(listeners).toFixed(2)} |`);
  console.log(`| pipeline.chat(), in-process transport, without the plugin | ${median(without).toFixed(2)} |`);
  console.log(`| pipeline.chat(), in-process transport, with the plugin | ${median(withPlugin).toFixed(2)} |`);
  console.log(`| difference | ${(median(withPlugin) - median(without)).toFixed(2)} |`);
  console.log(`\none /metrics render of the plugin's registry: ${((scrapeUsed.user + scrapeUsed.system) / 200).toFixed(0)} µs CPU (${registryText.length} bytes)`);
  await pipeline.close();
  await plain.close();
}

await main();
