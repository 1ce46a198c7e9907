import { SERVICE } from '@switchyard/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, definePlugin, provideService, runWithVirtualTime, STAGE, VirtualClock, type AttemptRecord, type Pipeline, type Plugin, type SwitchyardEvents } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { completion, startLoopback, type Handler, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { hedge, type HedgeOptionsInput } from '../src/index.js';

let servers: Loopback[] = [];
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  pipeline = undefined;
});

const json = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion(text)));
};
const status = (code: number): Handler => (_req, res) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `failed with ${code}` } }));
};
const hang: Handler = () => undefined;

/** One upstream per handler; `priorities[i]` is deployment i's priority (its tier). */
async function setup(handlers: Handler[], priorities: number[], options: HedgeOptionsInput, extra: Plugin[] = []) {
  servers = await Promise.all(handlers.map((h) => startLoopback(h)));
  const clock = new VirtualClock();
  const outcomes: AttemptRecord[] = [];
  const starts: { at: number; endpoint: string }[] = [];
  pipeline = createPipeline({
    clock,
    endpoints: servers.map((s, i) => ({ name: `u${i}`, provider: 'test', baseUrl: s.url })),
    models: { chat: servers.map((_, i) => ({ endpoint: `u${i}`, model: `m${i}`, priority: priorities[i] })) },
    providers: [testProvider],
    plugins: [...extra, hedge(options)],
  });
  pipeline.events.on('attempt:end', (o) => outcomes.push(o));
  pipeline.events.on('attempt:start', ({ candidate }) => starts.push({ at: clock.now(), endpoint: candidate.endpoint.name }));
  return { clock, outcomes, starts, pipeline };
}

const hello = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const race = { tiers: { '*': { raceLastTier: true } } };

describe('racing the last-resort tier', () => {
  it('starts the last tier\'s two best candidates at once: the first answer wins, the loser is aborted, both are counted', async () => {
    let loserClosed = false;
    const { clock, outcomes, starts, pipeline: p } = await setup(
      [
        status(503),
        (req) => {
          req.socket.on('close', () => (loserClosed = true));
        },
        json('from the second backup'),
      ],
      [0, 1, 1],
      race,
    );
    const withdrawals: string[] = [];
    provideService(p, SERVICE.retryBudget, { tryWithdraw: async (id: string) => (withdrawals.push(id), true) });
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 10 });
    expect(r.choices[0].message.content).toBe('from the second backup');
    expect(r.switchyard.endpoint).toBe('u2');
    // The primary first; then both backups at the same moment (the core's attempt on u1 is the one the race runs).
    expect([...new Set(starts.map((s) => s.endpoint))]).toEqual(['u0', 'u1', 'u2']);
    const startOf = (endpoint: string) => starts.find((s) => s.endpoint === endpoint)!.at;
    expect(startOf('u2')).toBe(startOf('u1'));
    expect(withdrawals).toEqual(['u2/m2']);
    await expect.poll(() => loserClosed, { timeout: 5_000, interval: 5 }).toBe(true);
    expect(outcomes.map((o) => [o.candidate.endpoint.name, o.outcome])).toEqual(
      expect.arrayContaining([
        ['u0', 'endpoint-failure'],
        ['u1', 'ignored'],
        ['u2', 'success'],
      ]),
    );
    expect(outcomes).toHaveLength(3);
  });

  it('when the first to finish fails, the other one answers', async () => {
    const { clock, outcomes, pipeline: p } = await setup([status(503), status(502), json('the survivor')], [0, 5, 5], race);
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 10 });
    expect(r.choices[0].message.content).toBe('the survivor');
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['endpoint-failure', 'endpoint-failure', 'success']);
    expect(servers.map((s) => s.requests.length)).toEqual([1, 1, 1]);
  });

  it('leaves the first tier alone, and a model with a single tier', async () => {
    const tiered = await setup([json('primary'), json('b1'), json('b2')], [0, 1, 1], race);
    const r = await runWithVirtualTime(tiered.clock, tiered.pipeline.chat(hello), { stepMs: 10 });
    expect(r.choices[0].message.content).toBe('primary');
    expect(servers.map((s) => s.requests.length)).toEqual([1, 0, 0]);
    await pipeline!.close();
    await Promise.all(servers.map((s) => s.close()));

    const flat = await setup([json('a'), json('b')], [0, 0], race);
    await runWithVirtualTime(flat.clock, flat.pipeline.chat(hello), { stepMs: 10 });
    expect(servers.map((s) => s.requests.length)).toEqual([1, 0]);
  });

  it('is opt-in: without it the last tier is tried one candidate after the other', async () => {
    const { clock, starts, pipeline: p } = await setup([status(503), hang, json('second backup')], [0, 1, 1], { tiers: { '*': {} } });
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 1_000 });
    expect(r.choices[0].message.content).toBe('second backup');
    // u2 only after u1's 30 s first-byte limit.
    expect(starts.find((s) => s.endpoint === 'u2')!.at - starts.find((s) => s.endpoint === 'u1')!.at).toBeGreaterThanOrEqual(30_000);
  });

  it('spends the retry budget: no budget, no race, and says so', async () => {
    const { clock, starts, pipeline: p } = await setup([status(503), hang, json('second backup')], [0, 1, 1], race);
    provideService(p, SERVICE.retryBudget, { tryWithdraw: async () => false });
    const skips: SwitchyardEvents['race:skipped'][0][] = [];
    p.events.on('race:skipped', (e) => skips.push(e));
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 1_000 });
    expect(r.choices[0].message.content).toBe('second backup');
    expect(starts.find((s) => s.endpoint === 'u2')!.at - starts.find((s) => s.endpoint === 'u1')!.at).toBeGreaterThanOrEqual(30_000);
    // u1's attempt could not race u2 for want of budget; u2's attempt had no partner left (u1 was tried).
    expect(skips.map((e) => [e.candidate.endpoint.name, e.reason, e.partner?.endpoint.name])).toEqual([
      ['u1', 'retry-budget', 'u2'],
      ['u2', 'partner-unavailable', undefined],
    ]);
    expect(JSON.stringify(skips)).not.toContain('apiKey');
  });

  it('says why a last tier did not race: its partner filtered out, or no other deployment in the tier', async () => {
    // A route filter (as an open breaker or a cooldown would) leaves u2 out.
    const withoutU2 = definePlugin({ name: 'test-drop-u2', version: '0.1.0', core: '^0.1.0', apply(p) {
      p.hooks.route.tap({ name: 'test-drop-u2', stage: STAGE.FILTER }, (candidates) => candidates.filter((c) => c.endpoint.name !== 'u2'));
    } });
    const filtered = await setup([status(503), json('b1'), json('b2')], [0, 1, 1], race, [withoutU2()]);
    const skips: SwitchyardEvents['race:skipped'][0][] = [];
    filtered.pipeline.events.on('race:skipped', (e) => skips.push(e));
    expect((await runWithVirtualTime(filtered.clock, filtered.pipeline.chat(hello), { stepMs: 10 })).choices[0].message.content).toBe('b1');
    expect(skips.map((e) => [e.candidate.endpoint.name, e.reason])).toEqual([['u1', 'partner-unavailable']]);
    await pipeline!.close();
    await Promise.all(servers.map((s) => s.close()));

    const single = await setup([status(503), json('the only backup')], [0, 1], race);
    const alone: string[] = [];
    single.pipeline.events.on('race:skipped', (e) => alone.push(e.reason));
    await runWithVirtualTime(single.clock, single.pipeline.chat(hello), { stepMs: 10 });
    expect(alone).toEqual(['single-deployment']);
  });
});
