/**
 * Child process for bench/gateway.ts: one contender (argv[2]) in front of the mock upstreams,
 * on two listeners: primary healthy, and primary dead (nothing listens on its port).
 * - thin: the thinnest useful node:http failover proxy (undici request, next upstream on 5xx
 *   or a connection error)
 * - core: @switchyard/gateway with the core's default failover only
 * - plugins: @switchyard/gateway with router + health + circuit breaker + retry (BENCH_PLUGINS
 *   names a subset: `router,breaker`, to read what each costs alone and together)
 * - logged: the same, set up as `switchyard serve` sets itself up: its pino logger (an access
 *   line per request, masked, through serve's buffered destination to /dev/null) and its heap
 *   growth limit
 * - failures: the four plugins with a primary playing a failure (bench/upstream.ts): `r429` (every
 *   other answer a 429 with a 1 ms Retry-After, retried on the same deployment), `hedge` (a primary
 *   20 ms slow, hedged after 5 ms by @switchyard/plugin-hedge), `cut` (streams cut after half their
 *   events, continued on the backup), beside a healthy listener of its own
 * Prints one JSON line with the URLs (scenario → URL), then serves until killed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { Plugin } from '@switchyard/core';
import { benchServeLogger, startBenchGateway } from './bench-gateway.js';

const [kind, primary, secondary, deadPrimary] = process.argv.slice(2);
/** Which of the four policy plugins the plugin contenders run (all four unless told). */
const PLUGIN_SET = (process.env.BENCH_PLUGINS ?? 'router,health,breaker,retry').split(',').filter(Boolean);
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

async function thinProxy(first: string, second: string): Promise<string> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    for (const base of [first, second]) {
      let up;
      try {
        // The client's API path under the vendor's base URL (/v1/messages → {base}/messages).
        up = await request(`${base}${(req.url ?? '').replace(/^\/v1/, '')}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher: agent });
      } catch {
        if (base === first) continue;
        res.writeHead(502).end();
        return;
      }
      if (up.statusCode >= 500 && base === first) {
        await up.body.dump();
        continue;
      }
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
      for await (const c of up.body) res.write(c);
      res.end();
      return;
    }
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function serveLogger() {
  const { limitHeapGrowth } = await import('@switchyard/cli');
  limitHeapGrowth();
  return benchServeLogger();
}

/** What a failure scenario changes in the four-plugin stack. */
interface Variant {
  /** Attempts on one deployment before the next (1: a failure moves on at once). */
  attemptsPerCandidate?: number;
  /** Hedge after this many ms. */
  hedgeAfterMs?: number;
}

async function gateway(first: string, second: string, withPlugins: boolean, logged: boolean, variant: Variant = {}): Promise<string> {
  const plugins: Plugin[] = [];
  if (withPlugins) {
    const [{ router }, { health }, { circuitBreaker }, { retry }] = await Promise.all([
      import('@switchyard/plugin-router'),
      import('@switchyard/plugin-health'),
      import('@switchyard/plugin-circuit-breaker'),
      import('@switchyard/plugin-retry'),
    ]);
    const all = { router, health, breaker: circuitBreaker, retry: () => retry({ maxAttemptsPerCandidate: variant.attemptsPerCandidate ?? 1 }) };
    for (const name of PLUGIN_SET) {
      if (!(name in all)) throw new Error(`BENCH_PLUGINS: unknown plugin '${name}' (known: ${Object.keys(all).join(', ')})`);
      plugins.push(all[name as keyof typeof all]());
    }
    if (variant.hedgeAfterMs) {
      const { hedge } = await import('@switchyard/plugin-hedge');
      plugins.push(hedge({ tiers: { '*': { hedge: { delayMs: variant.hedgeAfterMs } } } }));
    }
  }
  return (await startBenchGateway(first, second, plugins, logged ? await serveLogger() : undefined)).url;
}

/** The primary's base URL with a failure the mock plays (`http://host:port/v1` → `http://host:port/r429/v1`). */
const playing = (base: string, behaviour: string) => base.replace(/\/v1$/, `/${behaviour}/v1`);
const serve = (first: string) => (kind === 'thin' ? thinProxy(first, secondary) : gateway(first, secondary, kind !== 'core', kind === 'logged'));
const urls: Record<string, string> =
  kind === 'failures'
    ? {
        healthy: await gateway(primary, secondary, true, false),
        r429: await gateway(playing(primary, 'r429'), secondary, true, false, { attemptsPerCandidate: 2 }),
        hedge: await gateway(playing(primary, 'slow20'), secondary, true, false, { hedgeAfterMs: 5 }),
        cut: await gateway(playing(primary, 'cut'), secondary, true, false),
      }
    : { healthy: await serve(primary), dead: await serve(deadPrimary) };
const allocations = process.env.BENCH_ALLOC_PROFILE ? await sampleAllocations(process.env.BENCH_ALLOC_PROFILE) : undefined;
process.stdout.write(JSON.stringify(urls) + '\n');
process.on('SIGTERM', () => void (allocations ? allocations().finally(() => process.exit(0)) : process.exit(0)));

/**
 * BENCH_ALLOC_PROFILE=<dir>: every allocation from here on, sampled (one in 512 bytes) with the
 * objects the GC has since collected (what `--heap-prof` leaves out, and what a request's
 * garbage is); written to <dir>/alloc-<kind>-<pid>.heapprofile at SIGTERM, for heap-top.ts.
 */
async function sampleAllocations(dir: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) => new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
  return async () => {
    const { profile } = await post<{ profile: unknown }>('HeapProfiler.stopSampling');
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/alloc-${kind}-${process.pid}.heapprofile`, JSON.stringify(profile));
  };
}
