/**
 * Clock reads per request, by caller: `Date.now()` (what the system clock's `now()` and a few
 * timestamps call) counted while a gateway set up as `switchyard serve` sets itself up (the four
 * policy plugins, serve's logger writing its access line to /dev/null) answers the bench's
 * requests, each call charged to the first Switchyard function on its stack. A read costs 85 ns on
 * the bench VM (a VM's clock source), so the count is worth knowing; it is exact and repeatable
 * where a timed A/B of one read less is not.
 * Run: pnpm bench:clock-reads [modes=stream,chat] [requests=500]
 */
import { Pool } from 'undici';
import { router } from '@switchyard/plugin-router';
import { health } from '@switchyard/plugin-health';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { retry } from '@switchyard/plugin-retry';
import { benchServeLogger, startBenchGateway } from './bench-gateway.js';
import { startUpstream } from './upstream.js';
import { REQUESTS, type Mode } from './requests.js';

const [modesArg = 'stream,chat', requestsArg = '500'] = process.argv.slice(2);
const modes = modesArg.split(',') as Mode[];
for (const mode of modes) if (!REQUESTS[mode]) throw new Error(`unknown mode ${mode}: one of ${Object.keys(REQUESTS).join(', ')}`);
const measured = Number(requestsArg);

const primary = await startUpstream();
const secondary = await startUpstream();
const plugins = [router(), health(), circuitBreaker(), retry({ maxAttemptsPerCandidate: 1 })];
const { gateway, url } = await startBenchGateway(primary.url, secondary.url, plugins, await benchServeLogger());
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
