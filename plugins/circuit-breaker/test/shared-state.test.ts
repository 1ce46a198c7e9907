/**
 * Several instances on one StateStore: two pipelines sharing a MemoryStateStore are two gateway
 * instances sharing a Redis, on virtual time. Their updates interleave between read and write,
 * which compareAndSet makes safe; a store without it still serialises each instance's updates.
 */
import { describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore, seededRandom, VirtualClock, type StateStore } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { drive } from '../../retry/test/support/drive.js';
import { fail, ok, scriptedTransport, type Script } from '../../retry/test/support/in-process.js';
import { BreakerStore, MAX_CAS_ROUNDS } from '../src/breaker-store.js';
import { circuitBreaker, closedRecord, getBreaker, recordFailure, type BreakerRecord } from '../src/index.js';

const REQ = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const MODELS = { chat: [{ endpoint: 'a', model: 'x' }, { endpoint: 'b', model: 'y' }] };
const OPTIONS = { consecutiveFailures: 4, failureRatio: 0.5, minThroughput: 10, windowMs: 30_000, buckets: 10, baseOpenMs: 5_000, maxOpenMs: 60_000, openJitter: 0, probeLeaseMs: 30_000 };

/** One gateway instance on the shared clock and store; `a` answers as its script says. */
function instance(clock: VirtualClock, store: StateStore, script: Script, events: string[]) {
  const pipeline = createPipeline({
    endpoints: [
      { name: 'a', provider: 'test', baseUrl: 'http://a.test/v1' },
      { name: 'b', provider: 'test', baseUrl: 'http://b.test/v1' },
    ],
    models: MODELS,
    providers: [testProvider],
    plugins: [circuitBreaker({ consecutiveFailures: 4, openJitter: 0 })],
    clock,
    random: seededRandom(5),
    store,
    transport: scriptedTransport(script, () => clock.now()),
  });
  pipeline.events.on('breaker:open', (e) => events.push(`open ${e.deployment}`));
  pipeline.events.on('breaker:close', (e) => events.push(`close ${e.deployment}`));
  return pipeline;
}

const aFails: Script = ({ host }) => (host === 'a.test' ? fail(503, 'down') : ok());
const allOk: Script = () => ok();

/** The same store without compareAndSet, as a store that predates it would be. */
function withoutCompareAndSet(store: MemoryStateStore): StateStore {
  return {
    get: (key) => store.get(key),
    set: (key, value, ttl) => store.set(key, value, ttl),
    delete: (key) => store.delete(key),
    increment: (key, by, ttl) => store.increment(key, by, ttl),
    acquireLease: (key, holder, ttl) => store.acquireLease(key, holder, ttl),
    releaseLease: (key, holder) => store.releaseLease(key, holder),
  };
}

describe('two instances on one store with compareAndSet', () => {
  it('count every failure of simultaneous requests split across both, and open once', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    const events: string[] = [];
    const a = instance(clock, store, aFails, events);
    const b = instance(clock, store, aFails, events);
    const answers = await drive(clock, Promise.all([a.chat(REQ), b.chat(REQ), a.chat(REQ), b.chat(REQ)]));
    expect(answers.map((r) => r.switchyard?.endpoint)).toEqual(['b', 'b', 'b', 'b']);
    expect(await getBreaker(b).getState('a/x')).toMatchObject({ state: 'open', failures: 4, trips: 1, window: { calls: 4, failures: 4 } });
    expect(events).toEqual(['open a/x']);
  });

  it('a success racing the failure that trips the breaker is counted, and the events match the state', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    const events: string[] = [];
    // The same breaker id a/x: instance a reaches a failing upstream, instance b a healthy one.
    const a = instance(clock, store, aFails, events);
    const b = instance(clock, store, allOk, events);
    for (let i = 0; i < 3; i++) await drive(clock, a.chat(REQ));
    await drive(clock, Promise.all([a.chat(REQ), b.chat(REQ)]));
    const state = await getBreaker(a).getState('a/x');
    expect(state.window).toEqual({ calls: 5, failures: 4 });
    // Whichever write landed first, the other was re-run on it: an open breaker is never
    // overwritten by a closed one after its breaker:open was announced.
    expect(events).toEqual(state.state === 'open' ? ['open a/x'] : []);
    expect(state.failures).toBe(state.state === 'open' ? 4 : 1);
  });

  it('count 30 simultaneous failures on each: one update in flight per instance keeps the compare rounds few', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    const events: string[] = [];
    const sent: string[] = [];
    const counting: Script = (call) => {
      if (call.host === 'a.test') sent.push(call.host);
      return aFails(call);
    };
    const a = instance(clock, store, counting, events);
    const b = instance(clock, store, counting, events);
    await drive(clock, Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).chat(REQ))));
    // Without the per-instance queue, 30 updates of one instance would race each other and the
    // last ones would run out of rounds (and overwrite).
    expect(await getBreaker(a).getState('a/x')).toMatchObject({ state: 'open', failures: sent.length, window: { calls: sent.length, failures: sent.length } });
    expect(sent.length).toBeGreaterThan(2 * MAX_CAS_ROUNDS);
    expect(events).toEqual(['open a/x']);
  });
});

describe('a store without compareAndSet', () => {
  it('still serialises one instance: concurrent failures are all counted', async () => {
    const clock = new VirtualClock(0);
    const events: string[] = [];
    const pipeline = instance(clock, withoutCompareAndSet(new MemoryStateStore(clock)), aFails, events);
    await drive(clock, Promise.all(Array.from({ length: 3 }, () => pipeline.chat(REQ))));
    expect(await getBreaker(pipeline).getState('a/x')).toMatchObject({ state: 'closed', failures: 3, window: { calls: 3, failures: 3 } });
  });
});

describe('BreakerStore.update', () => {
  const noEvents = () => undefined;

  /** A store on which another instance writes the breaker record right after each of our reads. */
  class RivalWrites extends MemoryStateStore {
    constructor(clock: VirtualClock, private rivalWrites: number) {
      super(clock);
    }
    override async get<T>(key: string): Promise<T | undefined> {
      const value = await super.get<T>(key);
      if (this.rivalWrites-- > 0) {
        const seen = (value as BreakerRecord | undefined) ?? closedRecord();
        await super.set(key, recordFailure(seen, 0, OPTIONS, () => 0).record);
      }
      return value;
    }
  }

  it('runs the step again on the fresh record when another instance wrote in between', async () => {
    const clock = new VirtualClock(0);
    const store = new RivalWrites(clock, 3);
    const breakers = new BreakerStore(store, clock, () => 0, noEvents, OPTIONS);
    await breakers.update('a/x', (record, now, random) => recordFailure(record, now, OPTIONS, random));
    // Three rival failures and ours: none lost.
    expect(await breakers.state('a/x')).toMatchObject({ failures: 4, state: 'open' });
  });

  it(`writes without comparing after ${MAX_CAS_ROUNDS} refused rounds rather than spin`, async () => {
    const clock = new VirtualClock(0);
    const store = new RivalWrites(clock, Number.POSITIVE_INFINITY);
    const breakers = new BreakerStore(store, clock, () => 0, noEvents, OPTIONS);
    let rounds = 0;
    await breakers.update('a/x', (record, now, random) => {
      rounds++;
      return recordFailure(record, now, OPTIONS, random);
    });
    expect(rounds).toBe(MAX_CAS_ROUNDS);
    // The last round read the record after MAX_CAS_ROUNDS - 1 rival failures and wrote ours on
    // top of it, over the rival's last write: the last-writer-wins of a store without compareAndSet.
    expect((await store.get<BreakerRecord>('switchyard:breaker:a/x'))?.consecutiveFailures).toBe(MAX_CAS_ROUNDS);
  });
});

describe('BreakerStore on the healthy path', () => {
  const noEvents = () => undefined;
  const step = (record: BreakerRecord) => ({ record });

  it('answers admission and counts a success at once on an in-process store, and later on a remote one', async () => {
    const clock = new VirtualClock(0);
    const local = new BreakerStore(new MemoryStateStore(clock), clock, () => 0, noEvents, OPTIONS);
    expect(local.admitEach(['a/x', 'b/y'], 'r1')).toEqual(['closed', 'closed']);
    expect(local.recordSuccess('a/x', step)).toBeUndefined();
    expect((await local.state('a/x')).window.calls).toBe(1);

    const remote = new BreakerStore(withoutCompareAndSet(new MemoryStateStore(clock)), clock, () => 0, noEvents, OPTIONS);
    const admission = remote.admitEach(['a/x'], 'r1');
    expect(admission).toBeInstanceOf(Promise);
    expect(await admission).toEqual(['closed']);
    const counted = remote.recordSuccess('a/x', step);
    expect(counted).toBeInstanceOf(Promise);
    await counted;
    expect((await remote.state('a/x')).window.calls).toBe(1);
  });

  it('still takes the probe lease of a half-open breaker, once', async () => {
    const clock = new VirtualClock(0);
    const breakers = new BreakerStore(new MemoryStateStore(clock), clock, () => 0, noEvents, OPTIONS);
    for (let i = 0; i < OPTIONS.consecutiveFailures; i++) await breakers.update('a/x', (record, now, random) => recordFailure(record, now, OPTIONS, random));
    expect(breakers.admitEach(['a/x'], 'r1')).toEqual([false]);
    await clock.advance(OPTIONS.baseOpenMs);
    expect(await breakers.admitEach(['a/x', 'b/y'], 'r1')).toEqual(['probe', 'closed']);
    expect(await breakers.admitEach(['a/x'], 'r2')).toEqual([false]);
  });
});
