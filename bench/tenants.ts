/**
 * What virtual keys (@switchyard/plugin-tenants) cost per request (target: the key check under
 * 5 µs CPU with the memory store; with Redis at most one round trip, and none while cached).
 *
 * 1. The key check alone, as the gateway runs it (`CallerGate.admit`: server keys, then the
 *    tenants service), on a cached key: CPU per check, next to a plain `server.apiKeys` check.
 * 2. Store reads per check with a Redis store (127.0.0.1:6390, or SWITCHYARD_REDIS_URL): a cached
 *    key, one just invalidated by another gateway (pub/sub), one past the cache period.
 * 3. The reservation and the settlement alone (issue 34; target: under 10 µs CPU together on
 *    the memory store): the request's upper bound (every input string, n choices, the dearest
 *    candidate), the reservation on a key with a day budget, a team budget and rpm / tpm limits,
 *    and its settlement.
 * 4. pipeline.chat() over an in-process transport: without the plugin, with a key that has no
 *    limits, with a key that has a day budget and an rpm limit (what the reservation and the
 *    settlement cost on the memory store), and with tokens held too (the key's tpm limit,
 *    plugin-quota's tpm budgets on the model and the endpoint).
 * Run: pnpm bench:tenants
 */
import { SERVICE } from '@switchyard/contracts';
import { createPipeline, getService, MemoryStateStore, VirtualClock, type CallerIdentity, type Pipeline, type StateStore } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { quota } from '@switchyard/plugin-quota';
import { tenants } from '@switchyard/plugin-tenants';
import { createRedisStore } from '@switchyard/store-redis';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CallerGate } from '../packages/gateway/src/caller-gate.js';
import { SpendCounters, type Caller } from '../plugins/tenants/src/reservations.js';
import { reservationTokens, reservationUsd } from '../plugins/tenants/src/cost-estimate.js';
import { cpuMicros, cpuMicrosAsync, median, memoryTransport } from './in-process.js';

const CHECKS = Number(process.env.BENCH_CHECKS ?? 200_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REDIS_URL = process.env.SWITCHYARD_REDIS_URL ?? 'redis://127.0.0.1:6390';

const answer = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } });

/** plugin-quota tpm budgets on the model and on the endpoint: each request holds its token bound on both, then settles. */
const TPM_BUDGETS = [{ model: 'chat', tpm: 1e12 }, { endpoint: 'local', tpm: 1e12 }];

function build(store: StateStore, withTenants: boolean, clock?: VirtualClock, budgets: object[] = []): Pipeline {
  return createPipeline({
    endpoints: [{ name: 'local', provider: 'openai', baseUrl: 'http://local.test/v1', apiKey: 'sk-bench' }],
    models: { chat: [{ endpoint: 'local', model: 'bench-model', price: { input: 0.001, output: 0.001 } }] },
    providers: [openaiProvider],
    transport: memoryTransport(answer),
    store,
    clock,
    plugins: withTenants ? [quota({ budgets } as never), tenants({ cacheTtlMs: 1_000 })] : [quota({ budgets } as never)],
  });
}

async function createKey(pipeline: Pipeline, fields: Record<string, unknown>): Promise<{ secret: string; caller: CallerIdentity }> {
  const service = getService(pipeline, SERVICE.tenants)!;
  const created = (await service.admin({ method: 'POST', path: '/switchyard/keys', query: {}, body: fields })).body as { secret: string };
  const caller = (await service.authenticate(created.secret)) as CallerIdentity;
  return { secret: created.secret, caller };
}

async function keyCheck(): Promise<void> {
  // A virtual clock that stands still: the cache period never ends during the loop (a real one re-reads once a second).
  const pipeline = build(new MemoryStateStore(), true, new VirtualClock(Date.now()));
  const service = getService(pipeline, SERVICE.tenants)!;
  const { secret } = await createKey(pipeline, { name: 'bench', team: 'a', budget: { month: { limitUsd: 100 } } });
  const tenantsGate = new CallerGate([], []);
  const serverGate = new CallerGate(['gw-bench-key-0123456789'], []);
  if (!tenantsGate.admit(secret, service, false) || (tenantsGate.admit(secret, service, false) as { kind: string }).kind !== 'caller') throw new Error('the key does not authenticate');
  const run = (gate: CallerGate, presented: string, tenantsService = service) => () => {
    for (let i = 0; i < CHECKS; i++) if (gate.admit(presented, tenantsService, false) instanceof Promise) throw new Error('a cached key made a promise');
  };
  const virtual: number[] = [];
  const wrong: number[] = [];
  const plain: number[] = [];
  for (let r = 0; r < RUNS + 1; r++) {
    const v = cpuMicros(run(tenantsGate, secret)) / CHECKS;
    const w = cpuMicros(run(tenantsGate, `${secret.slice(0, -4)}AAAA`)) / CHECKS;
    const p = cpuMicros(run(serverGate, 'gw-bench-key-0123456789', undefined as never)) / CHECKS;
    if (r === 0) continue; // warm-up
    virtual.push(v);
    wrong.push(w);
    plain.push(p);
  }
  console.log(`key check, CPU per check (median of ${RUNS} runs of ${CHECKS}, Node ${process.version})\n`);
  console.log('| check | µs CPU |');
  console.log('|---|---:|');
  console.log(`| a server.apiKeys key (one configured) | ${median(plain).toFixed(2)} |`);
  console.log(`| a virtual key, cached (memory store) | ${median(virtual).toFixed(2)} |`);
  console.log(`| a virtual key with a wrong secret, cached | ${median(wrong).toFixed(2)} |`);
  await pipeline.close();
}

/** Counts the reads of key records a store serves. */
function counting<S extends StateStore>(store: S): S & { reads: number } {
  const counted = store as S & { reads: number };
  counted.reads = 0;
  const get = store.get.bind(store);
  counted.get = ((key: string) => {
    if (key.includes(':key:')) counted.reads++;
    return get(key);
  }) as S['get'];
  return counted;
}

async function redisRoundTrips(): Promise<void> {
  const prefix = `switchyard-bench:tenants:${process.pid}:`;
  const storeA = counting(createRedisStore({ url: REDIS_URL, prefix, connectTimeoutMs: 500 }));
  const storeB = createRedisStore({ url: REDIS_URL, prefix, connectTimeoutMs: 500 });
  try {
    await Promise.all([storeA.ready(), storeB.ready()]);
  } catch {
    console.log(`\nno Redis at ${REDIS_URL}: store reads per check not measured`);
    await Promise.all([storeA.close(), storeB.close()]);
    return;
  }
  const clock = new VirtualClock(Date.now());
  const a = build(storeA, true, clock);
  const b = build(storeB, true);
  const serviceA = getService(a, SERVICE.tenants)!;
  const serviceB = getService(b, SERVICE.tenants)!;
  const { secret } = await createKey(b, { name: 'bench' });
  const id = secret.slice(3, 23);
  const reads = async (label: string, work: () => unknown) => {
    const before = storeA.reads;
    const started = process.hrtime.bigint();
    const result = work();
    const sync = !(result instanceof Promise);
    await result;
    const micros = Number(process.hrtime.bigint() - started) / 1000;
    return `| ${label} | ${storeA.reads - before} | ${sync ? 'at once' : `${micros.toFixed(0)} µs`} |`;
  };
  const rows = [await reads('first check on gateway A (its pub/sub connection opening meanwhile)', () => serviceA.authenticate(secret))];
  rows.push(await reads('cached', () => serviceA.authenticate(secret)));
  const cachedReads = storeA.reads;
  for (let i = 0; i < 10_000; i++) serviceA.authenticate(secret);
  const manyCached = storeA.reads - cachedReads;
  // Gateway B changes the key: A's copy goes by pub/sub (A's plugin listens first), the next check reads once.
  const invalidated = new Promise<void>((resolve) => {
    const off = storeA.subscribe('switchyard:tenants:changes', () => {
      off();
      resolve();
    });
  });
  await serviceB.admin({ method: 'PATCH', path: `/switchyard/keys/${id}`, query: {}, body: { owner: 'someone' } });
  await invalidated;
  rows.push(await reads('after gateway B changed the key (pub/sub invalidation)', () => serviceA.authenticate(secret)));
  await clock.advance(1_000);
  rows.push(await reads('after the cache period (1 s)', () => serviceA.authenticate(secret)));
  console.log(`\nwith @switchyard/store-redis (${REDIS_URL}): key-record reads per check\n`);
  console.log('| check | Redis reads | answered |');
  console.log('|---|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(`| 10 000 more checks while cached | ${manyCached} | at once |`);
  await Promise.all([a.close(), b.close()]);
  // ioredis is store-redis's dependency, not the workspace root's.
  type Client = { scan(cursor: string, ...args: (string | number)[]): Promise<[string, string[]]>; del(...keys: string[]): Promise<number>; disconnect(): void };
  const { Redis } = createRequire(fileURLToPath(import.meta.resolve('@switchyard/store-redis')))('ioredis') as { Redis: new (url: string, options: object) => Client };
  const inspector = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
  let cursor = '0';
  do {
    const [next, keys] = await inspector.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length) await inspector.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  inspector.disconnect();
  await Promise.all([storeA.close(), storeB.close()]);
}

async function reserveAndSettle(): Promise<void> {
  const clock = new VirtualClock(Date.now());
  const pipeline = build(new MemoryStateStore(clock), true, clock);
  const counters = new SpendCounters(pipeline.store, 'bench:tenants');
  const candidates = pipeline.candidatesFor('chat');
  const price = { input: 0.001, output: 0.001 };
  const rules = { reserveOutputTokens: 1024, imageTokens: 2500, serverToolCalls: 10 };
  const caller: Caller = { keyId: 'key_bench', keyName: 'bench', team: 't', limits: { rpm: 1e9, tpm: 1e12 }, budget: { day: { limitUsd: 1e9, soft: 0.8, hard: 1 } }, teamBudget: { month: { limitUsd: 1e9, soft: 0.8, hard: 1 } } };
  const request = { model: 'chat', messages: [{ role: 'system' as const, content: 'You are terse.' }, { role: 'user' as const, content: 'What is the capital of France? Answer in one word.' }], max_tokens: 16 };
  const once = async () => {
    const usd = reservationUsd(candidates, request, rules, () => price);
    const tokens = reservationTokens(candidates, request, rules);
    const reservation = await counters.reserve(caller, Math.ceil(usd * 1_000_000), clock.now(), tokens);
    await counters.settle(reservation, 19, 19);
  };
  for (let i = 0; i < 5_000; i++) await once();
  const runs: number[] = [];
  for (let r = 0; r < RUNS; r++) runs.push((await cpuMicrosAsync(async () => {
    for (let c = 0; c < CALLS; c++) await once();
  })) / CALLS);
  console.log(`\nreservation + settlement alone, memory store (median of ${RUNS} runs of ${CALLS}; target < 10 µs)\n`);
  console.log('| work | µs CPU per request |');
  console.log('|---|---:|');
  console.log(`| upper bound, reserve (key day + team month budgets, rpm, tpm), settle | ${median(runs).toFixed(2)} |`);
  await pipeline.close();
}

async function perRequest(): Promise<void> {
  const clock = new VirtualClock(Date.now());
  const bare = build(new MemoryStateStore(clock), false, clock);
  const withPlugin = build(new MemoryStateStore(clock), true, clock);
  const withTpm = build(new MemoryStateStore(clock), true, clock, TPM_BUDGETS);
  const plainKey = await createKey(withPlugin, { name: 'plain' });
  const budgeted = await createKey(withPlugin, { name: 'budgeted', team: 't', budget: { day: { limitUsd: 1e9 } }, limits: { rpm: 1e9 } });
  const everything = await createKey(withTpm, { name: 'everything', team: 't', budget: { day: { limitUsd: 1e9 } }, limits: { rpm: 1e9, tpm: 1e12 } });
  const request = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 16 };
  const runs: [string, () => Promise<void>][] = [
    ['without the plugin', async () => void (await bare.chat(request))],
    ['a key without limits', async () => void (await withPlugin.chat(request, { caller: plainKey.caller }))],
    ['a key with a day budget, an rpm limit and a team', async () => void (await withPlugin.chat(request, { caller: budgeted.caller }))],
    ['the same with the key\'s tpm limit and quota tpm budgets on the model and the endpoint (tokens held, then settled)', async () => void (await withTpm.chat(request, { caller: everything.caller }))],
  ];
  for (let i = 0; i < 2000; i++) for (const [, once] of runs) await once();
  const results = runs.map(() => [] as number[]);
  for (let r = 0; r < RUNS; r++) {
    for (const [i, [, once]] of runs.entries()) {
      results[i].push(
        (await cpuMicrosAsync(async () => {
          for (let c = 0; c < CALLS; c++) await once();
        })) / CALLS,
      );
    }
  }
  console.log(`\npipeline.chat() with @switchyard/plugin-quota, in-process transport, memory store (median of ${RUNS} runs of ${CALLS})\n`);
  console.log('| caller | µs CPU per request | added |');
  console.log('|---|---:|---:|');
  const base = median(results[0]);
  for (const [i, [label]] of runs.entries()) console.log(`| ${label} | ${median(results[i]).toFixed(2)} | ${i === 0 ? '' : (median(results[i]) - base).toFixed(2)} |`);
  await Promise.all([bare.close(), withPlugin.close(), withTpm.close()]);
}

await keyCheck();
await redisRoundTrips();
await reserveAndSettle();
await perRequest();
