/**
 * Runs a built production bundle the way an operator does and checks it: started from a folder
 * outside the workspace (no node_modules above it) with a clean environment, against a loopback
 * mock vendor. Checks /health and /ready, a chat completion (JSON and SSE), a SIGHUP reload and a
 * SIGTERM drain (a slow request in flight completes, exit code 0), and prints the bundle's size
 * and the gateway's RSS at idle and after a short load.
 *
 * The bundle's size, file count and idle RSS in docs/deploy.md are this check's own output: given
 * the docs file, it fails when the documented numbers drift from the measured ones by more than
 * DRIFT, or when idle RSS is over IDLE_RSS_BUDGET_MB; SWITCHYARD_BUNDLE_DOCS=write rewrites them.
 *
 * Usage: node deploy/check/check-bundle.mjs <bundle-dir> <work-dir> [docs/deploy.md]
 * Node built-ins only: nothing from the workspace's node_modules is loaded.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startMockVendor } from './mock-vendor.mjs';

const [bundleArg, workArg, docsArg] = process.argv.slice(2);
if (!bundleArg || !workArg) {
  console.error('usage: check-bundle.mjs <bundle-dir> <work-dir>');
  process.exit(2);
}
const bundle = path.resolve(bundleArg);
const work = path.resolve(workArg);
const GATEWAY_KEY = 'sk-gateway-bundle-check-0123456789';
const VENDOR_KEY = 'sk-vendor-bundle-check-9876543210';
const SHUTDOWN_GRACE_MS = 10_000;
const SLOW_MS = 1_500;
const LOAD_REQUESTS = 2_000;
const REDIS_PORT = Number(process.env.SWITCHYARD_REDIS_PORT ?? 6390);
/**
 * The memory budget for one idle gateway, in MB of 10^6 bytes: DESIGN.md's 100 MB. It was raised
 * to 110 MB when idle RSS read 96–101 MB, but that reading still held start-up garbage (see
 * `settledRss`): once V8's memory reducer has run, the gateway idles at 77–90 MB.
 */
const IDLE_RSS_BUDGET_MB = 100;
/**
 * How far documented size, file count and idle RSS may be from the measured ones. Idle RSS
 * varies by itself: 73–86 MiB over 17 runs on one machine (most near 75, some near 85).
 */
const DRIFT = { bytes: 0.1, files: 0.1, rss: 0.2 };
const DOCS_START = '<!-- bundle-measurements: written by deploy/check-bundle.sh; SWITCHYARD_BUNDLE_DOCS=write updates them -->';
const DOCS_END = '<!-- /bundle-measurements -->';
/** Dev and test tooling that must never reach the bundle. */
const FORBIDDEN = ['typescript', 'tsup', 'tsx', 'esbuild', 'vite', 'vitest', 'fast-check', 'publint', 'openai', '@changesets/cli', '@switchyard/testkit', '@switchyard/chaos', 'msw'];

const results = [];
function pass(name, detail = '') {
  results.push({ name, ok: true });
  console.log(`ok   ${name}${detail ? ` (${detail})` : ''}`);
}
function fail(name, detail) {
  console.error(`FAIL ${name}: ${detail}`);
  process.exitCode = 1;
  throw new Error(`${name}: ${detail}`);
}
function expect(condition, name, detail) {
  if (!condition) fail(name, detail);
}

function ancestorsWithNodeModules(dir) {
  const found = [];
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'node_modules'))) found.push(path.join(d, 'node_modules'));
    if (d === path.dirname(d)) return found;
  }
}

function sizeOf(dir) {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = sizeOf(full);
      bytes += inner.bytes;
      files += inner.files;
    } else if (entry.isFile()) {
      bytes += statSync(full).size;
      files += 1;
    }
  }
  return { bytes, files };
}

function installedPackages(nodeModules) {
  const names = [];
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const inner of readdirSync(path.join(nodeModules, entry))) names.push(`${entry}/${inner}`);
    else names.push(entry);
  }
  return names;
}

function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

const mib = (kib) => (kib / 1024).toFixed(1);

/**
 * RSS once the gateway is idle: right after its first requests it still holds start-up garbage,
 * which V8's memory reducer returns about 8 s after the traffic stopped (measured: 116 MB, flat
 * for 7.5 s, then 91 MB). Idle is the lowest RSS after 10 s, once it has stayed within 1 MiB for
 * three samples 500 ms apart (at most 20 s). Stopping at the first three flat samples measured
 * the garbage, or part of it, between 97 and 116 MB from run to run.
 */
async function settledRss(pid) {
  let lowest = rssKiB(pid);
  let steady = 0;
  for (let waited = 0; waited < 20_000 && !(steady >= 3 && waited >= 10_000); waited += 500) {
    await new Promise((r) => setTimeout(r, 500));
    const now = rssKiB(pid);
    if (now.rss < lowest.rss - 1024) steady = 0;
    else steady++;
    if (now.rss < lowest.rss) lowest = now;
  }
  return lowest;
}

function redisAnswers() {
  return new Promise((resolve) => {
    const socket = net.connect(REDIS_PORT, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function configText(vendorUrl, redis) {
  return `# Written by deploy/check/check-bundle.mjs
server:
  host: 127.0.0.1
  port: 0
  apiKeys: ["\${SWITCHYARD_API_KEY}"]
  shutdownGraceMs: ${SHUTDOWN_GRACE_MS}
endpoints:
  - name: mock
    provider: openai-compatible
    baseUrl: ${vendorUrl}
    apiKey: "\${MOCK_VENDOR_API_KEY}"
models:
  chat:
    - { endpoint: mock, model: fast }
  slow:
    - { endpoint: mock, model: slow }
plugins:
  - use: "@switchyard/plugin-retry"
  - use: "@switchyard/plugin-circuit-breaker"
  - use: "@switchyard/plugin-health"
${redis ? `# The test Redis persists nothing: it opts out of the persistence check (durableRedis: trust).\nstore:\n  use: "@switchyard/store-redis"\n  options: { url: "redis://127.0.0.1:${REDIS_PORT}", prefix: "switchyard-bundle-check-${process.pid}:", durableRedis: trust }\n` : ''}`;
}

function startGateway(configFile) {
  // A clean environment: no NODE_OPTIONS (--conditions=@switchyard/source), no workspace paths.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', SWITCHYARD_API_KEY: GATEWAY_KEY, MOCK_VENDOR_API_KEY: VENDOR_KEY };
  const child = spawn(process.execPath, [path.join(bundle, 'bin.js'), 'serve', '--config', configFile, '--no-watch'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 30 s; stderr:\n${stderr}`)), 30_000);
    const look = () => {
      // serve writes pino JSON lines on stdout when it is not a terminal.
      const match = /"event":"listening","url":"(http:\/\/[^"]+?)\/v1/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', look);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with code ${code} before listening; stderr:\n${stderr}`));
    });
  });
  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

async function waitFor(predicate, ms, what) {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) fail(what, `not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function chat(base, model, content, stream = false) {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], stream }),
  });
  return { status: response.status, text: await response.text() };
}

async function load(base, total, concurrency) {
  let next = 0;
  let failed = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const { status } = await chat(base, 'chat', 'load');
        if (status !== 200) failed += 1;
      }
    }),
  );
  return { failed, seconds: (Date.now() - started) / 1000 };
}

async function main() {
  // 1. The bundle stands alone.
  expect(existsSync(path.join(bundle, 'bin.js')), 'bundle has bin.js', `${bundle}/bin.js is missing`);
  const above = [...ancestorsWithNodeModules(bundle), ...ancestorsWithNodeModules(work)];
  expect(above.length === 0, 'no node_modules above the bundle', above.join(', '));
  const packages = installedPackages(path.join(bundle, 'node_modules'));
  const forbidden = FORBIDDEN.filter((name) => packages.includes(name));
  expect(forbidden.length === 0, 'no dev or test tooling in the bundle', forbidden.join(', '));
  const wanted = Object.keys(JSON.parse(readFileSync(path.join(bundle, 'package.json'), 'utf8')).dependencies ?? {});
  const missing = wanted.filter((name) => !packages.includes(name));
  expect(missing.length === 0, 'every first-party package is in the bundle', missing.join(', '));
  const size = sizeOf(bundle);
  pass('bundle stands alone', `${packages.length} packages, ${(size.bytes / 1024 / 1024).toFixed(1)} MiB in ${size.files} files`);

  // 2. Serve a config that `use:`s plugins (and the Redis store when a Redis answers).
  const redis = await redisAnswers();
  if (!redis && process.env.CI === 'true') fail('redis', `no Redis on 127.0.0.1:${REDIS_PORT} (.ci/redis.sh starts one)`);
  if (!redis) console.log(`note: no Redis on 127.0.0.1:${REDIS_PORT}; served without @switchyard/store-redis`);
  const vendor = await startMockVendor({ slowMs: SLOW_MS });
  const configFile = path.join(work, 'switchyard.yaml');
  writeFileSync(configFile, configText(vendor.baseUrl, redis));
  const gateway = startGateway(configFile);
  try {
    const base = await gateway.listening;
    const pid = gateway.child.pid;
    pass('serve starts from the bundle', `${base}${redis ? ', store: @switchyard/store-redis' : ''}`);

    const health = await fetch(`${base}/health`);
    const healthBody = await health.json();
    expect(health.status === 200 && healthBody.status === 'ok', 'GET /health', `${health.status} ${JSON.stringify(healthBody)}`);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status === 200, 'GET /ready', `${ready.status} ${await ready.text()}`);
    pass('GET /health and /ready answer 200');

    const one = await chat(base, 'chat', 'hello');
    expect(one.status === 200 && JSON.parse(one.text).choices?.[0]?.message?.content === 'echo: hello', 'chat completion', `${one.status} ${one.text}`);
    const streamed = await chat(base, 'chat', 'hello stream', true);
    const deltas = streamed.text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
    expect(streamed.status === 200 && deltas === 'echo: hello stream' && streamed.text.includes('data: [DONE]'), 'streamed chat completion', `${streamed.status} ${streamed.text.slice(0, 300)}`);
    pass('chat completion through the gateway (JSON and SSE)');

    const idle = await settledRss(pid);
    const loadResult = await load(base, LOAD_REQUESTS, 16);
    expect(loadResult.failed === 0, 'short load', `${loadResult.failed} of ${LOAD_REQUESTS} requests failed`);
    const loaded = rssKiB(pid);
    pass('short load', `${LOAD_REQUESTS} requests at concurrency 16 in ${loadResult.seconds.toFixed(1)} s, ${(LOAD_REQUESTS / loadResult.seconds).toFixed(0)} req/s on this machine`);

    gateway.child.kill('SIGHUP');
    await waitFor(() => gateway.output().stdout.includes('"msg":"config reloaded"'), 10_000, 'SIGHUP reloads the config');
    const afterReload = await chat(base, 'chat', 'after reload');
    expect(afterReload.status === 200, 'chat after SIGHUP', `${afterReload.status} ${afterReload.text}`);
    pass('SIGHUP reloads the config; requests keep answering');

    // 3. SIGTERM while a slow request is in flight: it completes, then the process exits 0.
    const arrived = vendor.nextArrival();
    const slow = chat(base, 'slow', 'in flight').then((r) => ({ ...r, at: Date.now() }));
    await arrived;
    const termAt = Date.now();
    gateway.child.kill('SIGTERM');
    const [slowResult, exit] = await Promise.all([slow, gateway.exited]);
    expect(slowResult.status === 200 && JSON.parse(slowResult.text).choices?.[0]?.message?.content === 'echo: in flight', 'in-flight request survives SIGTERM', `${slowResult.status} ${slowResult.text}`);
    expect(exit.code === 0 && exit.signal === null, 'exit code after SIGTERM', `code ${exit.code}, signal ${exit.signal}`);
    expect(exit.at >= slowResult.at, 'exit after the in-flight request', 'the process exited before the request completed');
    expect(exit.at - termAt < SHUTDOWN_GRACE_MS, 'drain within shutdownGraceMs', `${exit.at - termAt} ms`);
    pass('SIGTERM drains', `in-flight request answered 200, exit 0 after ${exit.at - termAt} ms`);

    const { stdout, stderr } = gateway.output();
    const leaked = [GATEWAY_KEY, VENDOR_KEY].filter((k) => stdout.includes(k) || stderr.includes(k));
    expect(leaked.length === 0, 'no key in the output', `${leaked.length} key(s) printed`);
    pass('no key in the gateway output');

    const measurements = {
      bundleBytes: size.bytes,
      bundleFiles: size.files,
      packages: packages.length,
      rssIdleKiB: idle.rss,
      rssAfterLoadKiB: loaded.rss,
      rssPeakKiB: loaded.peak,
      loadRequests: LOAD_REQUESTS,
      loadSeconds: loadResult.seconds,
      node: process.version,
    };
    writeFileSync(path.join(work, 'measurements.json'), `${JSON.stringify(measurements, null, 2)}\n`);
    const idleMb = (idle.rss * 1024) / 1e6;
    expect(idleMb <= IDLE_RSS_BUDGET_MB, 'idle RSS within the budget', `${idleMb.toFixed(1)} MB at idle, budget ${IDLE_RSS_BUDGET_MB} MB`);
    pass('idle RSS within the budget', `${idleMb.toFixed(1)} MB of ${IDLE_RSS_BUDGET_MB} MB`);
    if (docsArg) reconcileDocs(path.resolve(docsArg), measurements);
    console.log(`
| measurement | value |
|---|---:|
| bundle size | ${(size.bytes / 1024 / 1024).toFixed(1)} MiB (${size.files} files, ${packages.length} packages) |
| RSS at idle | ${mib(idle.rss)} MiB |
| RSS after ${LOAD_REQUESTS} requests | ${mib(loaded.rss)} MiB |
| peak RSS (VmHWM) | ${mib(loaded.peak)} MiB |
`);
  } finally {
    if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGKILL');
    await vendor.close();
  }
}

const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

function docsTable(m) {
  return [
    '| | |',
    '|---|---:|',
    `| bundle size | ${(m.bundleBytes / 1024 / 1024).toFixed(1)} MiB (${thousands(m.bundleFiles)} files, ${m.packages} packages) |`,
    `| RSS at idle, after start and two requests | ${mib(m.rssIdleKiB)} MiB (${((m.rssIdleKiB * 1024) / 1e6).toFixed(0)} MB; budget ${IDLE_RSS_BUDGET_MB} MB) |`,
    `| RSS after ${thousands(m.loadRequests)} short requests at concurrency 16 | ${mib(m.rssAfterLoadKiB)} MiB (peak ${mib(m.rssPeakKiB)} MiB) |`,
    `| measured on | Node ${m.node.slice(1)}, ${new Date().toISOString().slice(0, 10)} |`,
  ].join('\n');
}

/** Compares (or, with SWITCHYARD_BUNDLE_DOCS=write, rewrites) the measurements block of the docs. */
function reconcileDocs(file, m) {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(DOCS_START);
  const end = text.indexOf(DOCS_END);
  expect(start >= 0 && end > start, 'docs hold the measurements block', `${file} has no ${DOCS_START} … ${DOCS_END} block`);
  if (process.env.SWITCHYARD_BUNDLE_DOCS === 'write') {
    writeFileSync(file, `${text.slice(0, start + DOCS_START.length)}\n${docsTable(m)}\n${text.slice(end)}`);
    pass('docs measurements written', file);
    return;
  }
  const block = text.slice(start, end);
  const documented = /bundle size \| ([\d.]+) MiB \(([\d\u2009 ,]+) files/.exec(block);
  const documentedRss = /RSS at idle, after start and two requests \| ([\d.]+) MiB/.exec(block);
  expect(documented && documentedRss, 'docs measurements readable', `cannot read size, files and idle RSS in ${file}`);
  const near = (doc, measured, share) => Math.abs(doc - measured) <= share * measured;
  const drift = [
    ['bundle size (MiB)', Number(documented[1]), m.bundleBytes / 1024 / 1024, DRIFT.bytes],
    ['files', Number(documented[2].replace(/\D/g, '')), m.bundleFiles, DRIFT.files],
    ['idle RSS (MiB)', Number(documentedRss[1]), m.rssIdleKiB / 1024, DRIFT.rss],
  ].filter(([, doc, measured, share]) => !near(doc, measured, share));
  expect(drift.length === 0, 'docs measurements are current', `${drift.map(([name, doc, measured]) => `${name}: documented ${doc}, measured ${measured.toFixed(1)}`).join('; ')}; run SWITCHYARD_BUNDLE_DOCS=write bash deploy/check-bundle.sh (pnpm bundle:measure)`);
  pass('docs measurements are current', file);
}

main().then(
  () => console.log(`bundle check: ${results.length} checks passed`),
  (error) => {
    if (!process.exitCode) console.error(error);
    process.exitCode = 1;
  },
);
