/**
 * Clock reads per request, by caller: `Date.now()` (what the system clock's `now()` and a few
 * timestamps call) counted while a gateway set up as `switchyard serve` sets itself up (the four
 * policy plugins, serve's logger writing its access line to /dev/null) answers the bench's
 * requests, each call charged to the first Switchyard function on its stack. A read costs 85 ns on
 * the bench VM (a VM's clock source), so the count is worth knowing; it is exact and repeatable
 * where a timed A/B of one read less is not.
 * Run: pnpm bench:clock-reads [modes=stream,chat] [requests=500]
 */
import { openSync, writeSync } from 'node:fs';
import { Pool } from 'undici';
import { createPipeline } from '@switchyard/core';
import { createGateway, DEFAULT_DIALECTS } from '@switchyard/gateway';
import { providers as openaiFamily } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { providers as gemini } from '@switchyard/provider-gemini';
import { geminiDialect } from '@switchyard/provider-gemini/dialect';
import { router } from '@switchyard/plugin-router';
import { health } from '@switchyard/plugin-health';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { retry } from '@switchyard/plugin-retry';
import { createServeLogger } from '@switchyard/cli';
import { startUpstream } from './upstream.js';
import { REQUESTS, type Mode } from './requests.js';

const [modesArg = 'stream,chat', requestsArg = '500'] = process.argv.slice(2);
const modes = modesArg.split(',') as Mode[];
for (const mode of modes) if (!REQUESTS[mode]) throw new Error(`unknown mode ${mode}: one of ${Object.keys(REQUESTS).join(', ')}`);
const measured = Number(requestsArg);

const primary = await startUpstream();
const secondary = await startUpstream();
const pair = (name: string, provider: string) => [
  { name: `${name}-primary`, provider, baseUrl: primary.url },
  { name: `${name}-secondary`, provider, baseUrl: secondary.url },
];
const deployments = (name: string) => [
  { endpoint: `${name}-primary`, model: 'bench-model' },
  { endpoint: `${name}-secondary`, model: 'bench-model' },
];
const pipeline = createPipeline({
  endpoints: [...pair('chat', 'openai-compatible'), ...pair('claude', 'anthropic'), ...pair('gpt', 'openai'), ...pair('gemini', 'gemini')],
  models: { chat: deployments('chat'), claude: deployments('claude'), gpt: deployments('gpt'), gemini: deployments('gemini') },
  providers: [...openaiFamily, ...anthropic, ...gemini],
  plugins: [router(), health(), circuitBreaker(), retry({ maxAttemptsPerCandidate: 1 })],
});
const devNull = openSync('/dev/null', 'w');
const logger = createServeLogger({ out: { fd: devNull, write: (line: string) => writeSync(devNull, line) > 0 }, secrets: () => [], level: 'info' });
const gateway = createGateway({ pipeline, dialects: [...DEFAULT_DIALECTS, geminiDialect], server: { host: '127.0.0.1', port: 0, maxInFlight: 100_000 }, logger });
const { url } = await gateway.listen();
const pool = new Pool(url.replace(/\/v1$/, ''), { connections: 8 });

async function send(mode: Mode, count: number): Promise<void> {
  const { path, body } = REQUESTS[mode];
  for (let i = 0; i < count; i++) {
    const answer = await pool.request({ method: 'POST', path: `/v1${path}`, headers: { 'content-type': 'application/json' }, body });
    await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`${mode}: status ${answer.statusCode}`);
  }
}

/** The first frame of a Switchyard package on the stack (`plugin-health/src/health.ts:65 <anonymous>`); undefined for the load generator's own reads. */
function callerOf(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(2)) {
    const match = /at (?:(\S+) )?\(?.*\/(?:packages|plugins)\/([\w-]+\/src\/[\w./-]+):(\d+):\d+\)?$/.exec(line);
    if (match && !match[2]!.startsWith('core/src/clock.ts')) return `${match[2]}:${match[3]} ${match[1] ?? '<anonymous>'}`;
  }
  return undefined;
}

const realNow = Date.now;
for (const mode of modes) {
  await send(mode, 200);
  const counts = new Map<string, number>();
  let total = 0;
  Date.now = () => {
    const caller = callerOf(new Error().stack ?? '');
    if (caller !== undefined) {
      total++;
      counts.set(caller, (counts.get(caller) ?? 0) + 1);
    }
    return realNow();
  };
  await send(mode, measured);
  Date.now = realNow;
  console.log(`${mode}: ${(total / measured).toFixed(1)} clock reads per request (${measured} requests)`);
  for (const [caller, count] of [...counts].sort((a, b) => b[1] - a[1])) if (count / measured >= 0.05) console.log(`  ${(count / measured).toFixed(2).padStart(5)}  ${caller}`);
}
await pool.close();
await gateway.close();
await Promise.all([primary.close(), secondary.close()]);
