/**
 * Gateway throughput, latency, CPU and memory against the same loopback upstream, in one run:
 * the upstream direct, the thinnest node:http failover proxy, the gateway core-only and with the
 * four policy plugins (router + health + breaker + retry); primary healthy and primary dead
 * (connection refused; the gateway's breaker opens during warm-up); non-streaming and
 * streaming; at several concurrencies. Every contender runs in its own process; the load
 * generator is this one. Prints the table and the ratios the performance targets are stated in.
 * Run: pnpm bench:gateway   (knobs: see bench/README.md)
 *      pnpm bench:serve     (`--serve`: the thin proxy, core only and the real `switchyard serve`)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { buildBenchEntry } from './build-contenders.js';
import { servedBundle, startServed } from './served.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const MAX_REQUESTS = Number(process.env.BENCH_MAX_REQUESTS ?? 50_000);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCIES ?? '1,32,128').split(',').map(Number);
const MODES = (process.env.BENCH_MODES ?? 'chat,stream').split(',') as Mode[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** Requests of the long run at c=32 against the gateway with plugins (0: skip). */
const LONG_REQUESTS = Number(process.env.BENCH_LONG ?? 0);
/** Another checkout (with its dependencies linked) whose gateway runs as extra contenders: before/after in one run. */
const BASELINE = process.env.BENCH_BASELINE;
/**
 * The contender kinds the baseline runs (`logged` needs a baseline whose bench/gateway-servers.ts
 * knows it; `served` builds the baseline's production bundle with its own deploy/bundle.sh).
 */
const BASELINE_KINDS = (process.env.BENCH_BASELINE_KINDS ?? 'core,plugins').split(',') as (GatewayKind | 'served')[];
const BASELINE_IN_PROCESS = BASELINE_KINDS.filter((kind): kind is GatewayKind => kind !== 'served');

/**
 * What the load generator sends: Chat Completions (the default modes), and the other ingress
 * dialects against a vendor of the same dialect (the pass-through paths): Anthropic Messages
 * to an `anthropic` endpoint, OpenAI Responses to an `openai` endpoint, the Gemini API to a
 * `gemini` endpoint, JSON and streaming.
 */
type Mode = 'chat' | 'stream' | 'messages' | 'messages-stream' | 'responses' | 'responses-stream' | 'gemini' | 'gemini-stream';
const isStream = (mode: Mode) => mode === 'stream' || mode.endsWith('-stream');
type GatewayKind = 'core' | 'plugins' | 'logged';
type Target = 'direct' | 'thin' | 'served' | GatewayKind | `${GatewayKind | 'served'}-baseline`;
/**
 * BENCH_TARGETS: which contenders run (default thin, core, plugins, logged; `served` is the real
 * `switchyard serve` from the production bundle; `--serve` makes the default thin, core, served).
 */
const KINDS = (process.env.BENCH_TARGETS ?? (process.argv.includes('--serve') ? 'thin,core,served' : 'thin,core,plugins,logged')).split(',') as ('thin' | 'served' | GatewayKind)[];
const ask = [{ role: 'user', content: 'Say something short.' }];
const bodies: Record<Mode, { path: string; body: string }> = {
  chat: { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: ask }) },
  stream: { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: ask, stream: true }) },
  messages: { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 256, messages: ask }) },
  'messages-stream': { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 256, messages: ask, stream: true }) },
  responses: { path: '/responses', body: JSON.stringify({ model: 'gpt', input: 'Say something short.' }) },
  'responses-stream': { path: '/responses', body: JSON.stringify({ model: 'gpt', input: 'Say something short.', stream: true }) },
  gemini: { path: '/models/gemini:generateContent', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say something short.' }] }] }) },
  'gemini-stream': { path: '/models/gemini:streamGenerateContent?alt=sse', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say something short.' }] }] }) },
};

/** The contenders run built (see build-contenders.ts) unless BENCH_TSX=1. */
const BUILT = process.env.BENCH_TSX !== '1';
/** BENCH_NODE_ARGS: V8 / Node flags for the contenders (e.g. --max-semi-space-size=4 to trade young-generation size for RSS). */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

async function start(file: string, args: string[] = []): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const profile = process.env.BENCH_PROFILE && file.includes('servers') ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const loader = file.endsWith('.mjs') ? [] : ['--conditions=@switchyard/source', '--import', 'tsx'];
  const tuning = file.includes('servers') ? NODE_ARGS : [];
  const child = fork(file.startsWith('/') ? file : fileURLToPath(new URL(file, import.meta.url)), args, { execArgv: [...loader, ...tuning, ...profile], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  return { child, info: JSON.parse(line) };
}

/** CPU time (ms) a process has used, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : NaN;
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  ttfb50: number;
  ttfb99: number;
  errors: number;
  cpuUs?: number;
  rss?: number;
}

async function load(baseUrl: string, mode: Mode, concurrency: number, pid: number, opts: { seconds: number; maxRequests: number; onSample?: (done: number) => void }): Promise<Result> {
  const url = new URL(baseUrl);
  const pool = new Pool(url.origin, { connections: concurrency, keepAliveTimeout: 30_000, pipelining: 1 });
  const path = `${url.pathname.replace(/\/$/, '')}${bodies[mode].path}`;
  const headers = { 'content-type': 'application/json' };
  const body = bodies[mode].body;
  const latencies = new Float64Array(opts.maxRequests);
  const ttfbs = new Float64Array(opts.maxRequests);
  let done = 0;
  let errors = 0;
  let measuring = false;
  const one = async () => {
    const t = performance.now();
    const res = await pool.request({ method: 'POST', path, headers, body });
    let first = 0;
    for await (const _chunk of res.body) if (!first) first = performance.now();
    const end = performance.now();
    if (res.statusCode !== 200) errors++;
    if (measuring && done < opts.maxRequests) {
      latencies[done] = end - t;
      ttfbs[done] = (first || end) - t;
      done++;
    }
  };
  const warmUntil = performance.now() + 400;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (performance.now() < warmUntil) await one(); }));
  errors = 0;
  measuring = true;
  let peakRss = rssMb(pid) ?? 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid) ?? 0);
    opts.onSample?.(done);
  }, 200);
  const end = performance.now() + opts.seconds * 1000;
  const started = performance.now();
  const cpuBefore = cpuMs(pid);
  await Promise.all(Array.from({ length: concurrency }, async () => { while (performance.now() < end && done < opts.maxRequests) await one(); }));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuMs(pid);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, rssMb(pid) ?? 0);
  await pool.close();
  const lat = latencies.subarray(0, done).sort();
  const tt = ttfbs.subarray(0, done).sort();
  return {
    rps: done / elapsed,
    p50: percentile(lat, 0.5),
    p99: percentile(lat, 0.99),
    ttfb50: percentile(tt, 0.5),
    ttfb99: percentile(tt, 0.99),
    errors,
    cpuUs: cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000) / done : undefined,
    rss: peakRss || undefined,
  };
}

function median(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

function medianResult(rs: Result[]): Result {
  const m = (f: (r: Result) => number | undefined) => median(rs.map((r) => f(r) ?? NaN));
  return { rps: m((r) => r.rps), p50: m((r) => r.p50), p99: m((r) => r.p99), ttfb50: m((r) => r.ttfb50), ttfb99: m((r) => r.ttfb99), errors: Math.max(...rs.map((r) => r.errors)), cpuUs: m((r) => r.cpuUs), rss: m((r) => r.rss) };
}

function printTable(rows: string[][], leftColumns: number): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const r of rows) console.log(r.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  console.log();
}

const servers = BUILT ? await buildBenchEntry('./gateway-servers.ts', 'gateway-servers') : './gateway-servers.ts';
const baselineServers = BASELINE && (BUILT ? await buildBenchEntry(`${BASELINE}/bench/gateway-servers.ts`, 'baseline-servers') : `${BASELINE}/bench/gateway-servers.ts`);
const upstream = await start(BUILT ? await buildBenchEntry('./gateway-upstream.ts', 'gateway-upstream') : './gateway-upstream.ts');
const upstreamArgs = [upstream.info.primary, upstream.info.secondary, upstream.info.dead];
const contenders: Record<string, { child: ChildProcess; info: Record<string, string> }> = {};
// The thin proxy always runs: every ratio is against it.
for (const kind of ['thin', ...KINDS.filter((k) => k !== 'thin' && k !== 'served')]) contenders[kind] = await start(servers, [kind, ...upstreamArgs]);
/** `switchyard serve` from a production bundle: a contender with a healthy primary only. */
const servedContender = async (bundle: string) => {
  const served = await startServed(bundle, upstream.info.primary, upstream.info.secondary, NODE_ARGS);
  return { child: served.child, info: { healthy: served.url } };
};
if (KINDS.includes('served')) contenders.served = await servedContender(servedBundle());
if (baselineServers) for (const kind of BASELINE_IN_PROCESS) contenders[`${kind}-baseline`] = await start(baselineServers, [kind, ...upstreamArgs]);
if (BASELINE && BASELINE_KINDS.includes('served')) contenders['served-baseline'] = await servedContender(servedBundle(BASELINE, 'baseline-bundle'));
// Serve-like and served contenders run only with a healthy primary.
const baselineTargets = (scenario: 'healthy' | 'dead'): [Target, string, number][] =>
  BASELINE
    ? BASELINE_KINDS.filter((kind) => scenario === 'healthy' || (kind !== 'logged' && kind !== 'served')).map((kind): [Target, string, number] => [`${kind}-baseline`, contenders[`${kind}-baseline`].info[scenario], contenders[`${kind}-baseline`].child.pid!])
    : [];
const running = (scenario: 'healthy' | 'dead') => (['thin', 'core', 'plugins', 'logged', 'served'] as const).filter((kind) => contenders[kind]?.info[scenario]);
const targets: Record<'healthy' | 'dead', [Target, string, number][]> = {
  healthy: [['direct', upstream.info.primary, upstream.child.pid!], ...running('healthy').map((kind): [Target, string, number] => [kind, contenders[kind].info.healthy, contenders[kind].child.pid!]), ...baselineTargets('healthy')],
  // The dead-primary scenario runs the in-process contenders (serve-like ones only when healthy).
  dead: [...running('dead').filter((kind) => kind !== 'logged').map((kind): [Target, string, number] => [kind, contenders[kind].info.dead, contenders[kind].child.pid!]), ...baselineTargets('dead')],
};
const label: Record<Target, string> = {
  direct: 'upstream direct',
  thin: 'thin node:http proxy',
  core: 'gateway, core only',
  plugins: 'gateway, 4 policy plugins',
  logged: 'serve-like, in process (4 plugins)',
  served: 'switchyard serve (bundle, 4 plugins)',
  'core-baseline': 'baseline gateway, core only',
  'plugins-baseline': 'baseline gateway, 4 policy plugins',
  'logged-baseline': 'baseline serve-like, in process',
  'served-baseline': 'baseline switchyard serve (bundle)',
};

console.log(`switchyard gateway bench: ${SECONDS} s (≤ ${MAX_REQUESTS} requests) per cell, median of ${ROUNDS} round(s), concurrency ${CONCURRENCIES.join('/')}, node ${process.version}, contenders ${BUILT ? 'built (esbuild, plain node)' : 'from source (tsx)'}${process.env.BENCH_NODE_ARGS ? ` with ${process.env.BENCH_NODE_ARGS}` : ''}\n`);
const results = new Map<string, Result[]>();
const key = (mode: Mode, scenario: string, c: number, target: Target) => `${mode}|${scenario}|${c}|${target}`;
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) {
    for (const c of CONCURRENCIES) {
      for (const scenario of ['healthy', 'dead'] as const) {
        for (const [target, url, pid] of targets[scenario]) {
          const r = await load(url, mode, c, pid, { seconds: SECONDS, maxRequests: MAX_REQUESTS });
          const k = key(mode, scenario, c, target);
          results.set(k, [...(results.get(k) ?? []), r]);
        }
      }
    }
  }
}
const get = (mode: Mode, scenario: string, c: number, target: Target) => {
  const rs = results.get(key(mode, scenario, c, target));
  return rs ? medianResult(rs) : undefined;
};
/**
 * Throughput against the thin proxy: the median of each round's ratio. A contender's cell runs
 * right after the proxy's in every round, so a ratio within a round shares the machine's speed
 * of the moment (it drifts 2–4× within minutes on a shared VM), which a ratio of medians does not.
 */
const vsThin = (mode: Mode, scenario: string, c: number, target: Target) => {
  const thin = results.get(key(mode, scenario, c, 'thin'));
  const mine = results.get(key(mode, scenario, c, target));
  return thin && mine ? median(mine.map((r, i) => r.rps / thin[i].rps)) : undefined;
};

const f = (x: number | undefined, digits = 2) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));
const rows: string[][] = [['mode', 'primary', 'c', 'target', 'req/s', 'vs thin', 'p50 ms', 'p99 ms', 'TTFB p50', 'TTFB p99', 'non-200', 'CPU µs/req', 'RSS MB']];
for (const mode of MODES) {
  for (const c of CONCURRENCIES) {
    for (const scenario of ['healthy', 'dead'] as const) {
      for (const [target] of targets[scenario]) {
        const r = get(mode, scenario, c, target)!;
        const ratio = target !== 'direct' ? f(vsThin(mode, scenario, c, target)) : '';
        rows.push([mode, scenario, String(c), label[target], f(r.rps, 0), ratio, f(r.p50), f(r.p99), isStream(mode) ? f(r.ttfb50) : '', isStream(mode) ? f(r.ttfb99) : '', String(r.errors), f(r.cpuUs, 0), f(r.rss, 0)]);
      }
    }
  }
}
printTable(rows, 4);

// The ratios the targets are stated in (issue 28, bench/README.md): all from the same run.
const summary: string[][] = [['target', 'measured', 'goal']];
/** The goal a contender's ratio to the thin proxy is held to: core ≥ 0.9, as users run it ≥ 0.8. */
const ratioGoal: Partial<Record<Target, string>> = { core: '≥ 0.90', served: '≥ 0.80' };
const gatewayKinds = ['core', 'plugins', 'logged', 'served'] as const;
for (const mode of MODES) {
  for (const c of CONCURRENCIES.filter((n) => n >= 32)) {
    for (const target of gatewayKinds) if (contenders[target]) summary.push([`req/s vs thin proxy, c=${c}, ${mode}, ${label[target]}`, f(vsThin(mode, 'healthy', c, target)), ratioGoal[target] ?? '']);
    for (const target of ['thin', ...gatewayKinds] as const) if (contenders[target]) summary.push([`peak RSS MB, c=${c}, ${mode}, ${label[target]}`, f(get(mode, 'healthy', c, target)?.rss, 0), target === 'served' ? '≤ 100' : '']);
  }
}
if (CONCURRENCIES.includes(32) && MODES.includes('chat')) {
  const healthy = results.get(key('chat', 'healthy', 32, 'plugins'));
  const dead = results.get(key('chat', 'dead', 32, 'plugins'));
  if (healthy && dead) summary.push(['req/s dead primary / healthy, c=32, 4 plugins', f(median(dead.map((r, i) => r.rps / healthy[i].rps))), '≥ 0.90']);
  if (dead) summary.push(['req/s vs thin proxy, dead primary, c=32, 4 plugins', f(vsThin('chat', 'dead', 32, 'plugins')), '≥ 0.72']);
  if (BASELINE) {
    for (const target of BASELINE_KINDS) {
      const before = get('chat', 'healthy', 32, `${target}-baseline`);
      const after = get('chat', 'healthy', 32, target);
      summary.push([`baseline: req/s vs thin proxy, c=32, ${label[target]}`, f(vsThin('chat', 'healthy', 32, `${target}-baseline`)), '']);
      summary.push([`CPU µs/req after / baseline, c=32, ${label[target]}`, f(before?.cpuUs && after?.cpuUs ? after.cpuUs / before.cpuUs : undefined), '']);
      summary.push([`peak RSS MB baseline, c=32, ${label[target]}`, f(before?.rss, 0), '']);
    }
  }
}
/**
 * A dialect's pass-through against Chat Completions' (issue 35: the Gemini API within 10 % of
 * chat): each round's ratio to the thin proxy for one over the other's, the median.
 */
const vsChat = (mode: Mode, chatMode: Mode, c: number, target: Target) => {
  const [thin, mine, chatThin, chat] = [key(mode, 'healthy', c, 'thin'), key(mode, 'healthy', c, target), key(chatMode, 'healthy', c, 'thin'), key(chatMode, 'healthy', c, target)].map((k) => results.get(k));
  return thin && mine && chatThin && chat ? median(mine.map((r, i) => r.rps / thin[i].rps / (chat[i].rps / chatThin[i].rps))) : undefined;
};
for (const [mode, chatMode] of [['gemini', 'chat'], ['gemini-stream', 'stream']] as const) {
  if (!MODES.includes(mode) || !MODES.includes(chatMode)) continue;
  for (const c of CONCURRENCIES.filter((n) => n >= 32)) {
    for (const target of gatewayKinds) if (contenders[target]) summary.push([`${mode} pass-through / ${chatMode} pass-through (each vs thin proxy), c=${c}, ${label[target]}`, f(vsChat(mode, chatMode, c, target)), '≥ 0.90']);
  }
}
const overhead = (mode: Mode, c: number, target: Target, pick: (r: Result) => number) => {
  const direct = get(mode, 'healthy', c, 'direct');
  const mine = get(mode, 'healthy', c, target);
  return direct && mine ? pick(mine) - pick(direct) : undefined;
};
if (CONCURRENCIES.includes(32)) {
  for (const mode of MODES) {
    for (const target of ['thin', 'core', 'plugins', 'logged', 'served'] as const) {
      if (contenders[target]) summary.push([`p99 overhead over direct, c=32, ${mode}, ${label[target]} (ms)`, f(overhead(mode, 32, target, (r) => r.p99)), target === 'served' ? '≤ 2.00' : '']);
    }
  }
}
if (CONCURRENCIES.includes(1)) {
  const atOne: Target[] = [...(['thin', 'core', 'plugins', 'served'] as const).filter((kind) => contenders[kind]), ...(BASELINE ? BASELINE_IN_PROCESS.filter((k) => k !== 'logged').map((k) => `${k}-baseline` as const) : [])];
  for (const target of atOne) {
    if (MODES.includes('chat')) summary.push([`p50 overhead over direct, c=1, non-streaming, ${label[target]} (ms)`, f(overhead('chat', 1, target, (r) => r.p50)), target === 'core' || target === 'plugins' ? '≤ 0.25' : '']);
    if (MODES.includes('stream')) {
      summary.push([`TTFB overhead p50, c=1, streaming, ${label[target]} (ms)`, f(overhead('stream', 1, target, (r) => r.ttfb50)), target === 'core' || target === 'plugins' ? '≤ 1.00' : '']);
      summary.push([`TTFB overhead p99, c=1, streaming, ${label[target]} (ms)`, f(overhead('stream', 1, target, (r) => r.ttfb99)), '']);
    }
  }
}
printTable(summary, 1);

if (LONG_REQUESTS > 0) {
  // The library's defaults (createGateway, 4 plugins) and serve's settings, one after the other.
  for (const [target, url, pid] of targets.healthy.filter(([t]) => t === 'plugins' || t === 'logged')) {
    const samples: string[] = [];
    let last = 0;
    const r = await load(url, 'chat', 32, pid, {
      seconds: 3600,
      maxRequests: LONG_REQUESTS,
      onSample: (done) => {
        if (done - last >= LONG_REQUESTS / 10) {
          last = done;
          samples.push(`${done}: ${f(rssMb(pid), 0)} MB`);
        }
      },
    });
    console.log(`long run, ${label[target]}, c=32, ${LONG_REQUESTS} requests: ${f(r.rps, 0)} req/s, peak RSS ${f(r.rss, 0)} MB, non-200 ${r.errors}`);
    console.log(`RSS over the run: ${samples.join(', ')}\n`);
  }
}

upstream.child.kill();
for (const c of Object.values(contenders)) c.child.kill();
