/**
 * Before / after on one core: this checkout's gateway against another checkout's, alternating.
 * On the shared 2-core VM the machine's own speed drifts by 2× within a minute, more than most
 * changes move a ratio of `bench:gateway`; CPU per request of two builds measured in alternating
 * short rounds, on the same pinned core, cancels most of it. The mock vendor and this load
 * generator are pinned to the other core (`taskset`, Linux: CPU time comes from /proc).
 * Prints each build's CPU µs per request per mode (minimum, median and every round) and the
 * ratio of the medians.
 * Run: node --conditions=@switchyard/source --import tsx bench/ab.ts <other checkout> [kind=core] [modes=stream] [rounds=12] [requests=3000]
 *   (kind `served`: each checkout's production bundle under `switchyard serve`, built by its own deploy/bundle.sh;
 *   `tenants`: the same with the ledger and virtual keys on, as bench/gateway.ts's `tenants` contender)
 *   (the other checkout with its dependencies installed: `git worktree add /tmp/base <commit> && (cd /tmp/base && pnpm install)`)
 * Variants of this checkout instead (kind `served` or `tenants`): give `.` as the other checkout and
 * say how the other differs: BENCH_AB_OTHER_CONFIG (YAML appended to its config, e.g. `records:
 * false`) and BENCH_AB_OTHER_BODY (JSON merged into its requests' bodies, e.g. `{"store":false}`).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Pool } from 'undici';
import { buildBenchEntry } from './build-contenders.js';
import { cpuMs, forkContender, sendRequests } from './contender.js';
import { REQUESTS, type Mode } from './requests.js';
import { BENCH_TENANT_KEY, servedBundle, startServed } from './served.js';

const [other, kind = 'core', modesArg = 'stream', roundsArg = '12', requestsArg = '3000'] = process.argv.slice(2);
if (!other || !existsSync(`${other}/bench/gateway-servers.ts`)) {
  console.error('usage: bench/ab.ts <other checkout> [kind=core|plugins|logged|served|tenants] [modes=stream,...] [rounds=12] [requests=3000]');
  process.exit(2);
}
if (!existsSync('/proc/self/stat')) {
  console.error('bench/ab.ts reads CPU time from /proc and pins with taskset: Linux only');
  process.exit(2);
}
const OTHER_CONFIG = process.env.BENCH_AB_OTHER_CONFIG ?? '';
const OTHER_BODY = process.env.BENCH_AB_OTHER_BODY ? (JSON.parse(process.env.BENCH_AB_OTHER_BODY) as Record<string, unknown>) : undefined;
if ((OTHER_CONFIG || OTHER_BODY) && kind !== 'served' && kind !== 'tenants') throw new Error('BENCH_AB_OTHER_CONFIG and BENCH_AB_OTHER_BODY are for the served and tenants kinds');
const modes = modesArg.split(',') as Mode[];
for (const mode of modes) if (!REQUESTS[mode]) throw new Error(`unknown mode ${mode}: one of ${Object.keys(REQUESTS).join(', ')}`);
const rounds = Number(roundsArg);
const requests = Number(requestsArg);
const CONCURRENCY = 32;

function pin(pid: number, cpu: string): void {
  try {
    execFileSync('taskset', ['-apc', cpu, String(pid)], { stdio: 'ignore' });
  } catch {
    console.error(`taskset could not pin ${pid}: the rounds run unpinned`);
  }
}

const upstream = await forkContender(await buildBenchEntry('./gateway-upstream.ts', 'gateway-upstream'), []);
const upstreamArgs = [upstream.info.primary!, upstream.info.secondary!, upstream.info.dead!];
/** `.`: variants of this checkout (one bundle for both). */
const same = other === '.';
const builds = [
  { name: 'other', checkout: same ? undefined : (other as string | undefined), servers: `${other}/bench/gateway-servers.ts` },
  { name: 'this', checkout: undefined, servers: './gateway-servers.ts' },
];
const cpus = Number(execFileSync('nproc').toString());
/** `served`: each checkout's production bundle under `switchyard serve` (built by its own deploy/bundle.sh); any other kind: its in-process contender. */
async function startContender(build: (typeof builds)[number]): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  if (kind === 'served' || kind === 'tenants') {
    const variant = build.name === 'other' ? OTHER_CONFIG : '';
    const served = await startServed(bundleOf(build), upstreamArgs[0]!, upstreamArgs[1]!, [], kind === 'tenants', [], variant);
    return { child: served.child, info: { healthy: served.url } };
  }
  return forkContender(await buildBenchEntry(build.servers, `ab-${build.name}-servers`), [kind, ...upstreamArgs]);
}
const bundles = new Map<string, string>();
function bundleOf(build: (typeof builds)[number]): string {
  const name = same ? 'ab-this-bundle' : `ab-${build.name}-bundle`;
  if (!bundles.has(name)) bundles.set(name, servedBundle(build.checkout, name));
  return bundles.get(name)!;
}
const contenders = await Promise.all(builds.map(startContender));
for (const c of contenders) pin(c.child.pid!, String(cpus - 1));
pin(upstream.child.pid!, '0');
pin(process.pid, '0');

const pools = contenders.map((c) => {
  const url = new URL(c.info.healthy!);
  return { pool: new Pool(url.origin, { connections: CONCURRENCY }), base: url.pathname };
});

function load(index: number, mode: Mode, count: number): Promise<void> {
  const { pool, base } = pools[index]!;
  const { path } = REQUESTS[mode];
  const body = builds[index]!.name === 'other' && OTHER_BODY ? JSON.stringify({ ...(JSON.parse(REQUESTS[mode].body) as object), ...OTHER_BODY }) : REQUESTS[mode].body;
  return sendRequests(pool, base + path, body, count, CONCURRENCY, `${builds[index]!.name}, ${mode},`, kind === 'tenants' ? BENCH_TENANT_KEY : undefined);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`bench/ab: ${kind}, ${rounds} alternating rounds of ${requests} requests at c = ${CONCURRENCY}, contenders on CPU ${cpus - 1}; CPU µs per request\n`);
for (const mode of modes) {
  for (let i = 0; i < contenders.length; i++) await load(i, mode, Math.max(1000, requests));
  const results: number[][] = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < contenders.length; j++) {
      const i = (round + j) % contenders.length; // who goes first alternates
      const pid = contenders[i]!.child.pid!;
      const before = cpuMs(pid)!;
      await load(i, mode, requests);
      results[i]!.push(((cpuMs(pid)! - before) * 1000) / requests);
    }
  }
  builds.forEach((b, i) => console.log(`${mode.padEnd(17)} ${b.name.padEnd(6)} min ${Math.min(...results[i]!).toFixed(0).padStart(4)}  median ${median(results[i]!).toFixed(0).padStart(4)}  [${results[i]!.map((x) => x.toFixed(0)).join(' ')}]`));
  console.log(`${mode.padEnd(17)} this ÷ other, medians: ${(median(results[1]!) / median(results[0]!)).toFixed(3)}\n`);
}
for (const c of contenders) c.child.kill();
upstream.child.kill();
await Promise.all(pools.map((p) => p.pool.close()));
