/**
 * Redis work per request, by feature, with two gateways (two pipelines, each with its own
 * @switchyard/store-redis connection) taking turns on one Redis of the bench's own (a
 * redis-server on BENCH_REDIS_PORT, default 6394; never the shared 6390).
 *
 * - round trips: the commands each gateway sent (counted on its ioredis client; an EVALSHA is one),
 * - server commands: `INFO commandstats` deltas (commands run inside a Lua script count too),
 * - the server's own rate for such commands (`redis-benchmark`, same machine), from which the
 *   fleet ceiling follows: requests/s one Redis carries = its commands/s ÷ commands per request;
 *   a Cluster of k primaries carries about k times that (every key is single-slot).
 *
 * 2 cores shared with other work cannot measure fleet throughput; this counts the work instead.
 * Run: pnpm bench:redis-ops
 */
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createPipeline, getService, SERVICE, type Pipeline, type Plugin } from '@switchyard/core';
import { cache } from '@switchyard/plugin-cache';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { health } from '@switchyard/plugin-health';
import { quota } from '@switchyard/plugin-quota';
import { tenants } from '@switchyard/plugin-tenants';
import { openaiProvider } from '@switchyard/provider-openai';
import { createRedisStore } from '@switchyard/store-redis';
import { memoryTransport } from './in-process.js';

const PORT = Number(process.env.BENCH_REDIS_PORT ?? 6394);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const URL_ = `redis://127.0.0.1:${PORT}`;
/** Commands/s of one Redis primary on a core of its own (a planning figure, not measured here: this machine's cores are shared). */
const REFERENCE = Number(process.env.BENCH_REDIS_REFERENCE ?? 100_000);

interface Client {
  info(section: string): Promise<string>;
  config(...args: string[]): Promise<unknown>;
  sendCommand(command: { name: string }): unknown;
  quit(): Promise<unknown>;
  ping(): Promise<string>;
}
// ioredis is store-redis's dependency, not the workspace root's.
const { Redis } = createRequire(fileURLToPath(import.meta.resolve('@switchyard/store-redis')))('ioredis') as { Redis: new (url: string, options?: object) => Client };

const answer = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } });

const FEATURES: Record<string, () => Plugin[]> = {
  'none (store only)': () => [],
  breaker: () => [circuitBreaker()],
  health: () => [health()],
  'cache (hit after the first)': () => [cache({ store: 'redis', ttlMs: 60_000 })],
  'budgets (quota, spend per day)': () => [quota({ budgets: [{ model: 'chat', spendPerDay: 1_000 }] })],
  'tenants (key with a day budget)': () => [quota(), tenants({ cacheTtlMs: 60_000 })],
  'all of the above': () => [circuitBreaker(), health(), quota({ budgets: [{ model: 'chat', spendPerDay: 1_000 }] }), tenants({ cacheTtlMs: 60_000 }), cache({ store: 'redis', ttlMs: 60_000 })],
};

const clients: Client[] = [];

async function gateway(plugins: Plugin[], prefix: string, counts: Map<string, number>): Promise<Pipeline> {
  const client = new Redis(URL_, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
  clients.push(client);
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: { name: string }) => {
    counts.set(command.name, (counts.get(command.name) ?? 0) + 1);
    return send(command);
  };
  const store = createRedisStore({ client: client as never, prefix, durableRedis: 'trust' });
  await store.ready();
  return createPipeline({
    endpoints: [{ name: 'local', provider: 'openai', baseUrl: 'http://local.test/v1', apiKey: 'sk-bench' }],
    models: { chat: [{ endpoint: 'local', model: 'bench-model', price: { input: 0.001, output: 0.001 } }] },
    providers: [openaiProvider],
    transport: memoryTransport(answer),
    store,
    plugins,
  });
}

function serverCommands(info: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(m[1], Number(m[2]));
  return out;
}

const total = (m: Map<string, number>, skip: (name: string) => boolean = () => false) => [...m].reduce((sum, [name, n]) => (skip(name) ? sum : sum + n), 0);
const top = (m: Map<string, number>, per: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, n]) => `${name} ${(n / per).toFixed(2)}`)
    .join(', ');

async function main(): Promise<void> {
  const server = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(PORT), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const admin = new Redis(URL_, { maxRetriesPerRequest: 1 }) as Client & { on(event: string, listener: () => void): void };
  admin.on('error', () => undefined);
  for (let i = 0; i < 50; i++) if (await admin.ping().catch(() => '')) break;
  try {
    console.log(`Redis work per request, two gateways taking turns, ${REQUESTS} requests (127.0.0.1:${PORT})\n`);
    console.log('| feature | round trips / request | server commands / request | most sent (per request) |');
    console.log('|---|---:|---:|---|');
    const perRequest: Record<string, number> = {};
    for (const [name, plugins] of Object.entries(FEATURES)) {
      const counts = new Map<string, number>();
      const prefix = `bench-ops:${Math.random().toString(36).slice(2)}:`;
      const pair = [await gateway(plugins(), prefix, counts), await gateway(plugins(), prefix, counts)];
      // One key, created on the first gateway, presented to both.
      const first = getService(pair[0], SERVICE.tenants);
      const secret = first ? ((await first.admin({ method: 'POST', path: '/switchyard/keys', query: {}, body: { name: 'bench', budget: { day: { limitUsd: 1_000 } } } })).body as { secret: string }).secret : undefined;
      const callers = await Promise.all(pair.map((p) => (secret ? getService(p, SERVICE.tenants)!.authenticate(secret) : undefined)));
      // Warm: connections, scripts loaded, keys cached; then count from zero.
      for (const [i, p] of pair.entries()) await p.chat({ model: 'chat', messages: [{ role: 'user', content: 'warm' }] }, { caller: callers[i] as never });
      await new Promise((resolve) => setTimeout(resolve, 50));
      counts.clear();
      await admin.config('RESETSTAT');
      for (let i = 0; i < REQUESTS; i++) {
        const at = i % 2;
        await pair[at].chat({ model: 'chat', messages: [{ role: 'user', content: name.startsWith('cache') ? 'same question' : `question ${i}` }] }, { caller: callers[at] as never });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const executed = serverCommands(await admin.info('commandstats'));
      // The bench's own INFO / CONFIG are not the gateways' work.
      const skip = (n: string) => n === 'info' || n.startsWith('config');
      const trips = total(counts) / REQUESTS;
      perRequest[name] = total(executed, skip) / REQUESTS;
      console.log(`| ${name} | ${trips.toFixed(2)} | ${perRequest[name].toFixed(2)} | ${top(counts, REQUESTS)} |`);
      await Promise.all(pair.map((p) => p.close()));
      await Promise.all(clients.splice(0).map((c) => c.quit()));
    }

    // What one Redis does per second here for the commands that dominate (GET, SET, INCRBYFLOAT in EVALSHA).
    const rates = execFileSync('redis-benchmark', ['-p', String(PORT), '-q', '-n', '100000', '-c', '50', '-t', 'get,set,incr,mset'], { encoding: 'utf8' });
    const rps = [...rates.matchAll(/^"?([A-Z_ ()0-9]+)"?[:,]\s*"?([\d.]+)/gm)].map((m) => [m[1].trim(), Number(m[2])] as const);
    const slowest = Math.min(...rps.filter(([n]) => /^(GET|SET|INCR)$/.test(n)).map(([, r]) => r));
    console.log(`\nredis-benchmark here (50 clients, one core of 2 shared): ${rps.map(([n, r]) => `${n} ${Math.round(r)}/s`).join(', ')}`);
    console.log(`\nfleet ceiling of one Redis at ${Math.round(slowest)} commands/s (the slowest of GET/SET/INCR; a script counts its inner commands):\n`);
    console.log(`| feature | requests/s one Redis carries here | with a 3-primary Cluster | one Redis at ${REFERENCE / 1000}k commands/s |`);
    console.log('|---|---:|---:|---:|');
    for (const [name, per] of Object.entries(perRequest)) {
      // Under one command in a hundred requests (health: none on the request path) is no ceiling.
      if (per < 0.01) continue;
      console.log(`| ${name} | ${Math.round(slowest / per)} | ${Math.round((3 * slowest) / per)} | ${Math.round(REFERENCE / per)} |`);
    }
  } finally {
    await admin.quit().catch(() => undefined);
    server.kill('SIGKILL');
  }
}

await main();
