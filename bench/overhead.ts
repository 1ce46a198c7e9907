/**
 * In-process overhead of pipeline.chat() / pipeline.stream() against a bare undici request to
 * the same loopback upstream, in one run. Reports µs per call (median of several runs) and the
 * ratio. Run: pnpm bench
 */
import { Agent, request } from 'undici';
import { createPipeline } from '@switchyard/core';
import { createUndiciTransport } from '@switchyard/core/config';
import { providers } from '@switchyard/provider-openai';
import { retry } from '@switchyard/plugin-retry';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { health } from '@switchyard/plugin-health';
import { router } from '@switchyard/plugin-router';
import { printTable } from './table.js';
import { chatBody, startUpstream, streamBody } from './upstream.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);

/** Wall µs per call, and this process's CPU µs per call (robust on a loaded machine). */
async function timeRun(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next++ < CALLS) await fn();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - start) / 1000 / CALLS, cpu: (used.user + used.system) / CALLS };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function measure(fns: Record<string, () => Promise<unknown>>): Promise<Record<string, { wall: number; cpu: number }>> {
  const samples: Record<string, { wall: number; cpu: number }[]> = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (const fn of Object.values(fns)) for (let i = 0; i < 300; i++) await fn(); // warm-up
  // Interleave runs so drift (GC, CPU frequency) hits every contender alike.
  for (let r = 0; r < RUNS; r++) for (const [name, fn] of Object.entries(fns)) samples[name].push(await timeRun(fn));
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, { wall: median(v.map((x) => x.wall)), cpu: median(v.map((x) => x.cpu)) }]));
}

async function main() {
  const upstream = await startUpstream();
  const agentOptions = { keepAliveTimeout: 30_000, connections: 64 };
  const bareAgent = new Agent(agentOptions);
  const url = `${upstream.url}/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };

  const bareChat = async () => {
    const res = await request(url, { method: 'POST', headers, body: chatBody, dispatcher: bareAgent });
    return res.body.json();
  };
  const bareStream = async () => {
    const res = await request(url, { method: 'POST', headers, body: streamBody, dispatcher: bareAgent });
    for await (const _chunk of res.body) void _chunk;
  };

  const endpoints = [{ name: 'local', provider: 'openai-compatible', baseUrl: upstream.url, apiKey: 'sk-bench' }];
  const models = { chat: [{ endpoint: 'local', model: 'bench-model' }] };
  // The transport users get, with its own Agent: one passed in as `dispatcher` would skip the body-written tracking that bills a failed attempt.
  const transport = () => createUndiciTransport({ keepAliveTimeoutMs: agentOptions.keepAliveTimeout, connections: agentOptions.connections });
  const plain = createPipeline({ endpoints, models, providers, transport: transport() });
  const full = createPipeline({ endpoints, models, providers, transport: transport(), plugins: [router(), health(), circuitBreaker(), retry()] });
  const req = { model: 'chat', messages: [{ role: 'user' as const, content: 'Say something short.' }] };

  const drain = async (p: typeof plain) => {
    const s = await p.stream(req);
    for await (const _part of s) void _part;
  };

  console.log(`switchyard bench: ${CALLS} calls × ${RUNS} runs, concurrency ${CONCURRENCY}, node ${process.version}\n`);
  const chat = await measure({ bare: bareChat, core: () => plain.chat(req), plugins: () => full.chat(req) });
  const stream = await measure({ bare: bareStream, core: () => drain(plain), plugins: () => drain(full) });

  // The upstream runs in this process too: the CPU difference is the pipeline's own CPU per call.
  const rows: string[][] = [['call', 'bare undici µs', 'pipeline µs', 'overhead µs', 'ratio', 'bare CPU µs', 'pipeline CPU µs', 'CPU overhead µs']];
  type Sample = { wall: number; cpu: number };
  const row = (name: string, bare: Sample, mine: Sample) =>
    rows.push([name, bare.wall.toFixed(1), mine.wall.toFixed(1), (mine.wall - bare.wall).toFixed(1), (mine.wall / bare.wall).toFixed(2), bare.cpu.toFixed(1), mine.cpu.toFixed(1), (mine.cpu - bare.cpu).toFixed(1)]);
  row('chat (core only)', chat.bare, chat.core);
  row('chat (router+health+breaker+retry)', chat.bare, chat.plugins);
  row('stream (core only)', stream.bare, stream.core);
  row('stream (router+health+breaker+retry)', stream.bare, stream.plugins);
  printTable(rows, 1);

  await Promise.all([plain.close(), full.close(), bareAgent.close(), upstream.close()]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
