/**
 * Warm backups: latency of the first failed-over request, with and without warm-up, against a
 * TLS loopback backup (self-signed certificate made for the run). Each run is a fresh pipeline
 * (fresh connection pool): the primary's breaker opens (as it would from failures, or from
 * another instance through a shared store), the run waits 200 ms, then one request goes out and
 * is served by the backup. With warm-up the TCP + TLS connection was opened when the breaker
 * opened; without, the request pays the handshake.
 *
 *   node --conditions=@switchyard/source --import tsx bench/warm-failover.ts     (BENCH_RUNS, default 40)
 */
import { performance } from 'node:perf_hooks';
import { createPipeline } from '@switchyard/core';
import { createUndiciTransport } from '@switchyard/core/config';
import { providers } from '@switchyard/provider-openai';
import { circuitBreaker, getBreaker } from '@switchyard/plugin-circuit-breaker';
import { health } from '@switchyard/plugin-health';
import { selfSignedCert, startTlsUpstream } from '../packages/core/test/support/tls-upstream.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const pem = selfSignedCert();
const backup = await startTlsUpstream(pem, { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] });

async function firstFailover(warm: boolean): Promise<number> {
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai', baseUrl: 'https://127.0.0.1:9/v1', apiKey: 'sk-bench' },
      { name: 'backup', provider: 'openai', baseUrl: backup.url, apiKey: 'sk-bench' },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'm' }, { endpoint: 'backup', model: 'm' }] },
    providers,
    plugins: [circuitBreaker(), health({ warmBackups: { enabled: warm } })],
    transport: createUndiciTransport({ ca: pem.cert }),
  });
  await getBreaker(pipeline).forceOpen('primary/m');
  await new Promise((r) => setTimeout(r, 200));
  const started = performance.now();
  const answer = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
  const ms = performance.now() - started;
  if (answer.switchyard?.endpoint !== 'backup') throw new Error('expected the backup to answer');
  await pipeline.close();
  return ms;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const rows: Record<string, number[]> = { 'without warm-up': [], 'with warm-up': [] };
// Interleaved, so drift on a shared machine hits both equally.
for (let i = 0; i < RUNS; i++) {
  rows['without warm-up'].push(await firstFailover(false));
  rows['with warm-up'].push(await firstFailover(true));
}
await backup.close();

console.log(`first failed-over request to a TLS loopback backup, ${RUNS} runs each (ms)\n`);
console.log('| | median | p90 | min |');
console.log('|---|---:|---:|---:|');
for (const [name, xs] of Object.entries(rows)) console.log(`| ${name} | ${quantile(xs, 0.5).toFixed(2)} | ${quantile(xs, 0.9).toFixed(2)} | ${Math.min(...xs).toFixed(2)} |`);
const saved = quantile(rows['without warm-up'], 0.5) - quantile(rows['with warm-up'], 0.5);
console.log(`\nmedian saved by warm-up: ${saved.toFixed(2)} ms (TCP + TLS set-up on loopback; add the network round trips to a real vendor)`);
