/**
 * Instructions per request: what each contender's main thread executes for one request, counted
 * by valgrind (callgrind) instead of timed. On a shared 2-core VM the timed CPU of one process
 * moves by a quarter between runs, and a pinned A/B of the same code read 0.76–1.24; an
 * instruction count of the same code repeats within about 3 %. It leaves out what a count cannot
 * see (the kernel's side of system calls, cache misses, the collector's helper threads), so it
 * complements `pnpm bench:gateway`, it does not replace it.
 *
 * The contenders run one after another under callgrind, each with the machine to itself; the
 * load is c = 8 from this process. After a warm-up the counters are zeroed, the measured requests
 * run, and the counters are dumped. Only the main thread is read: under valgrind the threads run
 * one at a time, and V8's idle worker threads spin for their turn, so their counts say nothing
 * about the contender.
 *
 * Valgrind runs a contender 30–50× slower than native, so work driven by the clock (the access
 * log's 20 ms batches, a journal's group commit, timers) runs that much more often per request:
 * a contender with such work counts more than it costs, and its count follows the machine's
 * speed: `switchyard serve` (its access log) read 545 and 547 k instructions per stream in one
 * run and 596 in another; the in-process gateway, with no such work on a healthy request, repeats
 * within about 3 % across runs. Two contenders run at once read up to 20 % apart from one run
 * alone, so they run one at a time. Compare builds of the same contender in one run, and read
 * thin / contender as a bound.
 *
 * Run: pnpm bench:instructions   (Debian: apt-get install valgrind)
 * Knobs: BENCH_MODES (default chat,stream,messages-stream,responses-stream,gemini-stream),
 * BENCH_TARGETS (default thin,core,served; also plugins, logged, tenants), BENCH_REQUESTS (1000),
 * BENCH_WARMUP (1500), BENCH_FUNCTIONS (N: also print where each contender's instructions go,
 * its N costliest source files and JavaScript functions; callgrind-profile.ts), BENCH_NODE_ARGS
 * (node flags for every contender: `--no-turbo-inlining` shows inlined functions on their own).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { buildBenchEntry } from './build-contenders.js';
import { forkContender, sendRequests } from './contender.js';
import { REQUESTS, type Mode } from './requests.js';
import { BENCH_TENANT_KEY, servedBundle, startServed } from './served.js';
import { instructionProfile } from './callgrind-profile.js';
import { printTable } from './table.js';

const MODES = (process.env.BENCH_MODES ?? 'chat,stream,messages-stream,responses-stream,gemini-stream').split(',') as Mode[];
const TARGETS = (process.env.BENCH_TARGETS ?? 'thin,core,served').split(',');
const REQUESTS_MEASURED = Number(process.env.BENCH_REQUESTS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const CONCURRENCY = 8;
const FUNCTIONS = Number(process.env.BENCH_FUNCTIONS ?? 0);
/** V8 names the code it generates in /tmp/perf-<pid>.map, which the profile reads. */
const NODE_ARGS = [...(FUNCTIONS > 0 ? ['--perf-basic-prof'] : []), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];

const label: Record<string, string> = {
  thin: 'thin node:http proxy',
  core: 'gateway, core only',
  plugins: 'gateway, 4 policy plugins',
  logged: 'serve-like, in process (4 plugins)',
  served: 'switchyard serve (bundle, 4 plugins)',
  tenants: 'switchyard serve + ledger + virtual keys',
};

for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error) {
    console.error(`bench:instructions needs ${tool} (Debian: apt-get install valgrind)`);
    process.exit(1);
  }
}
for (const target of TARGETS) if (!label[target]) throw new Error(`BENCH_TARGETS: unknown target '${target}' (known: ${Object.keys(label).join(', ')})`);

const out = mkdtempSync(path.join(tmpdir(), 'switchyard-instructions-'));
/** Callgrind, one dump file per thread; V8 writes code into its heap, which valgrind must see. */
const callgrind = (name: string) => ['valgrind', '--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', '--dump-instr=no', '-q', `--callgrind-out-file=${path.join(out, `${name}.%p`)}`];

const servers = await buildBenchEntry('./gateway-servers.ts', 'gateway-servers');
const upstream = await forkContender(await buildBenchEntry('./gateway-upstream.ts', 'gateway-upstream'), []);
const bundle = TARGETS.includes('served') || TARGETS.includes('tenants') ? servedBundle() : undefined;

async function startContender(target: string, name: string): Promise<{ child: ChildProcess; url: string }> {
  const launcher = callgrind(name);
  if (target === 'served' || target === 'tenants') {
    const served = await startServed(bundle!, upstream.info.primary!, upstream.info.secondary!, NODE_ARGS, target === 'tenants', launcher);
    return { child: served.child, url: served.url };
  }
  const [command, ...args] = launcher;
  const child = spawn(command!, [...args, process.execPath, ...NODE_ARGS, servers, target, upstream.info.primary!, upstream.info.secondary!, upstream.info.dead!], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, url: (JSON.parse(line) as Record<string, string>).healthy! };
}

function printProfile(title: string, dump: string, pid: number): void {
  const profile = instructionProfile(dump, pid, REQUESTS_MEASURED);
  if (!profile) return void console.log(`${title}: node wrote no /tmp/perf-${pid}.map, no profile`);
  for (const [what, rows] of [['source files', profile.byFile], ['functions', profile.byFunction]] as const) {
    console.log(`${title}: the ${FUNCTIONS} costliest ${what}, k instructions per request (with the engine work each calls)`);
    printTable([[what, 'k instr/req'], ...rows.slice(0, FUNCTIONS).map((row) => [row.name, (row.instructions / 1000).toFixed(1)])], 1);
  }
}

/** Instructions of the main thread between the counters' zeroing and their dump, per request. */
async function count(mode: Mode, target: string): Promise<number> {
  const name = `${mode}-${target}`;
  const { child, url } = await startContender(target, name);
  const { path: route, body } = REQUESTS[mode];
  const address = new URL(url + route);
  const pool = new Pool(address.origin, { connections: CONCURRENCY });
  const load = (requests: number) => sendRequests(pool, address.pathname + address.search, body, requests, CONCURRENCY, `${label[target]}, ${mode},`, target === 'tenants' ? BENCH_TENANT_KEY : undefined);
  try {
    await load(WARMUP);
    spawnSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
    await load(REQUESTS_MEASURED);
    spawnSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
    // The first dump's file of the first thread (the main one).
    const file = path.join(out, `${name}.${child.pid}.1-01`);
    const deadline = Date.now() + 60_000;
    let totals: RegExpExecArray | null;
    while (!(totals = existsSync(file) ? /^totals: (\d+)/m.exec(readFileSync(file, 'utf8')) : null)) {
      if (Date.now() > deadline) throw new Error(`callgrind wrote no dump for ${label[target]} (${file})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (FUNCTIONS > 0) printProfile(`${label[target]}, ${mode}`, file, child.pid!);
    return Number(totals[1]) / REQUESTS_MEASURED;
  } finally {
    await pool.close();
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
  }
}

const targets = ['thin', ...TARGETS.filter((t) => t !== 'thin')];
console.log(`switchyard instructions per request: main thread under callgrind, ${REQUESTS_MEASURED} requests at c = ${CONCURRENCY} after ${WARMUP} of warm-up, one contender at a time; node ${process.version}`);
const rows: string[][] = [['mode', ...targets.map((t) => `${label[t]} k instr/req${t === 'thin' ? '' : ' (thin / it)'}`)]];
for (const mode of MODES) {
  // One at a time: a contender's count depends on how fast it runs (below), so each gets the same machine.
  const counts: number[] = [];
  for (const target of targets) counts.push(await count(mode, target));
  rows.push([mode, ...counts.map((c, i) => `${(c / 1000).toFixed(1)}${i === 0 ? '' : ` (${(counts[0]! / c).toFixed(2)})`}`)]);
  console.log(`${mode}: ${counts.map((c, i) => `${targets[i]} ${(c / 1000).toFixed(1)} k`).join(', ')}`);
}
console.log();
printTable(rows, 1);
upstream.child.kill();
rmSync(out, { recursive: true, force: true });
