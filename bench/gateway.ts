/**
 * Gateway throughput and added latency, against the same loopback upstream direct and through
 * a thin node:http failover proxy, in one run: healthy, and with the primary failing every 4th
 * request (503). Upstreams, proxies and the load generator run in three processes.
 * Run: pnpm bench:gateway
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
// The gateway serves the logical model `chat`; the mock upstreams answer any model.
const chatBody = JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'Say something short.' }] });

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

async function start(file: string, args: string[] = []): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), args, { execArgv: ['--conditions=@switchyard/source', '--import', 'tsx', ...(process.env.BENCH_PROFILE && file.includes('servers') ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
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

async function load(baseUrl: string, serverPid?: number): Promise<{ rps: number; meanMs: number; errors: number; cpuUsPerRequest?: number }> {
  const url = new URL(baseUrl);
  const pool = new Pool(url.origin, { connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const path = `${url.pathname.replace(/\/$/, '')}/chat/completions`;
  const headers = { 'content-type': 'application/json' };
  let done = 0;
  let errors = 0;
  let latency = 0;
  const one = async () => {
    const t = performance.now();
    const res = await pool.request({ method: 'POST', path, headers, body: chatBody });
    await res.body.dump();
    if (res.statusCode !== 200) errors++;
    return performance.now() - t;
  };
  const warmUntil = performance.now() + 700;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (performance.now() < warmUntil) await one(); }));
  const end = performance.now() + SECONDS * 1000;
  const started = performance.now();
  const cpuBefore = serverPid ? cpuMs(serverPid) : undefined;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const ms = await one();
        latency += ms;
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = serverPid ? cpuMs(serverPid) : undefined;
  await pool.close();
  const cpuUsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000) / done : undefined;
  return { rps: done / elapsed, meanMs: latency / done, errors, cpuUsPerRequest };
}

const upstream = await start('./gateway-upstream.ts');
const proxies = await start('./gateway-servers.ts', [upstream.info.primary, upstream.info.secondary]);
console.log(`switchyard gateway bench: concurrency ${CONCURRENCY}, ${SECONDS} s per run, node ${process.version}\n`);
const rows: string[][] = [['scenario', 'target', 'req/s', 'mean ms', 'non-200', 'CPU µs/req', 'vs thin proxy']];
const cpu = (r: { cpuUsPerRequest?: number }) => (r.cpuUsPerRequest === undefined ? '-' : r.cpuUsPerRequest.toFixed(0));
for (const [scenario, failEvery] of [['healthy', 0], ['primary 503 every 4th', 4]] as const) {
  upstream.child.send({ failEvery });
  const direct = failEvery ? undefined : await load(upstream.info.primary, upstream.child.pid);
  const thin = await load(proxies.info.thin, proxies.child.pid);
  const core = await load(proxies.info.coreGateway, proxies.child.pid);
  const gateway = await load(proxies.info.gateway, proxies.child.pid);
  if (direct) rows.push([scenario, 'upstream direct', direct.rps.toFixed(0), direct.meanMs.toFixed(2), String(direct.errors), cpu(direct), '']);
  rows.push([direct ? '' : scenario, 'thin node:http proxy', thin.rps.toFixed(0), thin.meanMs.toFixed(2), String(thin.errors), cpu(thin), '1.00']);
  rows.push(['', 'switchyard gateway, core only', core.rps.toFixed(0), core.meanMs.toFixed(2), String(core.errors), cpu(core), (core.rps / thin.rps).toFixed(2)]);
  rows.push(['', 'switchyard gateway, policy plugins', gateway.rps.toFixed(0), gateway.meanMs.toFixed(2), String(gateway.errors), cpu(gateway), (gateway.rps / thin.rps).toFixed(2)]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
upstream.child.kill();
proxies.child.kill();
