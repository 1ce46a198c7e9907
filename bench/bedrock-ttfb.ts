/**
 * What Bedrock adds to a Claude stream's time to first byte over the Anthropic pass-through:
 * the same Claude Code-shaped Messages request through `pipeline.stream()` to a loopback
 * Anthropic (SSE) and a loopback Bedrock (AWS event-stream frames), with SigV4 signing from
 * static credentials and event-stream decoding in the measured path, beside a bare undici
 * `request()` to each upstream (the physical limit) in the same run, interleaved. TTFB = the
 * first part the caller receives. Also: µs per SigV4 signature and per whole-stream decode.
 *
 *   node --conditions=@switchyard/source --import tsx bench/bedrock-ttfb.ts
 *
 * Knobs: BENCH_CALLS (per contender per round, default 400), BENCH_RUNS (rounds, default 5).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { request as undiciRequest } from 'undici';
import { ANTHROPIC_MESSAGES, createPipeline, setRequestOrigin, type ChatRequest, type Pipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { createBedrockProvider, EventStreamFrames } from '@switchyard/provider-bedrock';
import { claudeCodeBody, claudeCodeEvents } from '../plugins/provider-bedrock/test/support/claude-code-shape.js';
import { chunkFrame } from '../plugins/provider-bedrock/test/support/event-stream-frames.js';
import { createSigner, sigV4Headers } from '../plugins/provider-bedrock/src/sign.js';
import { median } from './in-process.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MODEL = 'claude-sonnet-4-5-20250929';
const CREDENTIALS = { accessKeyId: 'AKIDBENCH000000001', secretAccessKey: 'bench/secret/0123456789abcdef' };

const sse = Buffer.from(claudeCodeEvents(MODEL).map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
const frames = Buffer.concat(claudeCodeEvents(MODEL, { 'amazon-bedrock-invocationMetrics': { inputTokenCount: 1200, outputTokenCount: 61, invocationLatency: 812, firstByteLatency: 301 } }).map(chunkFrame));

async function upstream(contentType: string, body: Buffer): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

function request(): ChatRequest {
  const unified: ChatRequest = { model: 'claude', messages: [{ role: 'user', content: 'Why does the test fail?' }] };
  setRequestOrigin(unified, { format: ANTHROPIC_MESSAGES, body: { ...claudeCodeBody(), model: 'claude' }, headers: { 'anthropic-version': '2023-06-01' } });
  return unified;
}

async function pipelineTtfb(pipeline: Pipeline): Promise<number> {
  const started = performance.now();
  const stream = await pipeline.stream(request());
  let first = 0;
  for await (const _part of stream) if (first === 0) first = performance.now() - started;
  return first;
}

async function bareTtfb(url: string): Promise<number> {
  const started = performance.now();
  const res = await undiciRequest(url, { method: 'POST', body: JSON.stringify(claudeCodeBody()), headers: { 'content-type': 'application/json' } });
  let first = 0;
  for await (const _chunk of res.body) if (first === 0) first = performance.now() - started;
  return first;
}

const anthropic = await upstream('text/event-stream', sse);
const bedrock = await upstream('application/vnd.amazon.eventstream', frames);
const anthropicPipeline = createPipeline({
  endpoints: [{ name: 'anthropic', provider: 'anthropic', baseUrl: `${anthropic.url}/v1`, apiKey: 'sk-ant-bench' }],
  models: { claude: [{ endpoint: 'anthropic', model: MODEL }] },
  providers: [anthropicProvider],
});
const bedrockPipeline = createPipeline({
  endpoints: [{ name: 'bedrock', provider: 'bedrock', region: 'us-east-1', baseUrl: bedrock.url }],
  models: { claude: [{ endpoint: 'bedrock', model: `us.anthropic.${MODEL}-v1:0` }] },
  providers: [createBedrockProvider({ source: () => async () => CREDENTIALS })],
});

const contenders: [string, () => Promise<number>][] = [
  ['bare undici → Anthropic mock', () => bareTtfb(`${anthropic.url}/v1/messages`)],
  ['pipeline → anthropic (pass-through)', () => pipelineTtfb(anthropicPipeline)],
  ['bare undici → Bedrock mock', () => bareTtfb(`${bedrock.url}/model/x/invoke-with-response-stream`)],
  ['pipeline → bedrock (SigV4 + event-stream)', () => pipelineTtfb(bedrockPipeline)],
];
const samples = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
for (const [, run] of contenders) for (let i = 0; i < 50; i++) await run(); // warm-up
for (let round = 0; round < RUNS; round++) {
  for (let i = 0; i < CALLS; i++) for (const [name, run] of contenders) samples.get(name)!.push(await run());
}
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!;
console.log(`| contender | TTFB p50 (ms) | p99 (ms) |\n|---|---|---|`);
for (const [name, xs] of samples) console.log(`| ${name} | ${p(xs, 0.5).toFixed(3)} | ${p(xs, 0.99).toFixed(3)} |`);
const delta = p(samples.get('pipeline → bedrock (SigV4 + event-stream)')!, 0.5) - p(samples.get('pipeline → anthropic (pass-through)')!, 0.5);
console.log(`\nBedrock TTFB p50 − Anthropic pass-through TTFB p50: ${(delta * 1000).toFixed(0)} µs (target < 1000 µs)`);

// The two costs Bedrock adds, alone.
const signer = createSigner('us-east-1', async () => CREDENTIALS);
const body = JSON.stringify(claudeCodeBody());
const signTimes: number[] = [];
for (let i = 0; i < 2000; i++) {
  const t = performance.now();
  await sigV4Headers(signer, { url: `${bedrock.url}/model/us.anthropic.${MODEL}-v1%3A0/invoke-with-response-stream`, method: 'POST', headers: { 'content-type': 'application/json' }, body });
  signTimes.push(performance.now() - t);
}
const decodeTimes: number[] = [];
const target = bedrockPipeline.candidatesFor('claude')[0]!;
for (let i = 0; i < 2000; i++) {
  const t = performance.now();
  new EventStreamFrames(target, (m) => ({ data: String(m.body.length) })).push(frames);
  decodeTimes.push(performance.now() - t);
}
console.log(`SigV4 signature of a ${body.length}-byte body: ${(median(signTimes)! * 1000).toFixed(1)} µs median`);
console.log(`event-stream decode of a whole ${frames.length}-byte, ${claudeCodeEvents(MODEL).length}-frame stream: ${(median(decodeTimes)! * 1000).toFixed(1)} µs median`);
await Promise.all([anthropicPipeline.close(), bedrockPipeline.close()]);
anthropic.close();
bedrock.close();
