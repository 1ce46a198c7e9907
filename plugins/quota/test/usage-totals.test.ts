/** Day totals in the StateStore: exact sums, and an outage of a shared store delays them instead of losing them. */
import { describe, expect, it } from 'vitest';
import { createPipeline, getService, MemoryStateStore, VirtualClock } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { UsageTotals } from '../src/usage-totals.js';
import { quota, USAGE_SERVICE } from '../src/index.js';
import { ask, upstream } from './harness.js';
import { addRecord, emptyDay, parseUsageQuery, withRecords, type DayDoc, type UsageRecord } from '../src/usage-record.js';

/** A store that can say it is unavailable, as @switchyard/store-redis does during an outage. */
class FlakyStore extends MemoryStateStore {
  available = true;
}

const record = (costUsd: number, extra: Partial<UsageRecord> = {}): UsageRecord => ({
  at: '2026-12-01T10:00:00.000Z', requestId: 'r', attempt: 1, model: 'chat', deployment: 'a/m', endpoint: 'a', key: 'a#0', tags: { team: 'x' },
  outcome: 'success', ok: true, inputTokens: 10, outputTokens: 5, cachedTokens: 0, costUsd, estimated: false, ...extra,
});
const query = parseUsageQuery({ since: '2026-12-01', until: '2026-12-01', groupBy: 'tag' }, Date.parse('2026-12-01T12:00:00Z'));

describe('usage totals', () => {
  it('sums costs in micro-dollars, so 0.1 + 0.2 is exactly 0.3', async () => {
    const totals = new UsageTotals(new MemoryStateStore(), 'q');
    await Promise.all([totals.add(record(0.1)), totals.add(record(0.2)), totals.add(record(0.000_001, { estimated: true, ok: false, outcome: 'endpoint-failure' }))]);
    const answer = await totals.answer(query);
    expect(answer.total).toMatchObject({ requests: 2, failures: 1, billed: { costUsd: 0.3, inputTokens: 20 }, estimated: { attempts: 1, costUsd: 0.000001 }, costUsd: 0.300001 });
    expect(Object.keys(answer.groups)).toEqual(['team=x']);
  });

  it('groups by the gateway key and team a record names, and reads days written before callers were recorded', async () => {
    const store = new MemoryStateStore();
    // A day document from before gatewayKey and team existed.
    await store.set('q:usage:2026-11-30', { total: { requests: 1, failures: 0, billedInputTokens: 1, billedOutputTokens: 1, billedCachedTokens: 0, billedCostMicros: 5, estimatedAttempts: 0, estimatedInputTokens: 0, estimatedOutputTokens: 0, estimatedCostMicros: 0 }, deployment: {}, key: {}, model: {}, tag: {} });
    const totals = new UsageTotals(store, 'q');
    await totals.add(record(0.25, { gatewayKey: 'key_0123456789abcdef', team: 'search' }));
    await totals.add(record(0.5, { gatewayKey: 'server#0' }));
    const range = (groupBy: string) => parseUsageQuery({ since: '2026-11-30', until: '2026-12-01', groupBy }, Date.parse('2026-12-01T12:00:00Z'));
    const byKey = await totals.answer(range('gatewayKey'));
    expect(Object.fromEntries(Object.entries(byKey.groups).map(([k, v]) => [k, v.costUsd]))).toEqual({ key_0123456789abcdef: 0.25, 'server#0': 0.5 });
    expect(byKey.total.requests).toBe(3);
    expect(Object.keys((await totals.answer(range('team'))).groups)).toEqual(['search']);
  });

  it('holds records while the shared store is unavailable and adds them when it answers again', async () => {
    const store = new FlakyStore();
    const totals = new UsageTotals(store, 'q');
    await totals.add(record(1));
    store.available = false;
    await totals.add(record(2));
    await totals.add(record(3));
    expect(await store.get('q:usage:2026-12-01')).toMatchObject({ total: { requests: 1 } });
    store.available = true;
    expect((await totals.answer(query)).total).toMatchObject({ requests: 3, billed: { costUsd: 6 } });
  });
});

/** A real memory store that counts its compare-and-set calls, and can hold a read until told. */
class CountingStore extends MemoryStateStore {
  casCalls = 0;
  private held: { started: () => void; released: Promise<void> } | undefined;

  override async compareAndSet<T>(key: string, expected: T | undefined, next: T, ttlMs?: number): Promise<boolean> {
    this.casCalls++;
    return super.compareAndSet(key, expected, next, ttlMs);
  }

  override async get<T>(key: string): Promise<T | undefined> {
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.started();
      await held.released;
    }
    return super.get<T>(key);
  }

  /** The next read waits for `release()`; `started` settles once it began. */
  holdNextRead(): { started: Promise<void>; release: () => void } {
    let release!: () => void;
    let started!: () => void;
    const begun = new Promise<void>((resolve) => (started = resolve));
    this.held = { started, released: new Promise<void>((resolve) => (release = resolve)) };
    return { started: begun, release };
  }
}

describe('usage totals under concurrent requests', () => {
  it('adds the answers that end in one turn of the event loop in one write, and those that arrive during a write in the next, exactly', async () => {
    const store = new CountingStore();
    const totals = new UsageTotals(store, 'q');
    await totals.add(record(0.1));
    expect(store.casCalls).toBe(1);
    // Twenty answers ending in one turn, some after others' promises settled: one write adds them all.
    const sameTurn = Array.from({ length: 11 }, (_, i) => totals.add(record(0.1, { requestId: `j${i}` })));
    await Promise.resolve();
    await Promise.resolve();
    sameTurn.push(...Array.from({ length: 9 }, (_, i) => totals.add(record(0.2, { requestId: `r${i}`, tags: { team: i % 2 ? 'x' : 'y' } }))));
    await Promise.all(sameTurn);
    expect(store.casCalls).toBe(2);
    // A write under way (its read waits for the store): what arrives meanwhile is the next write's.
    const reading = store.holdNextRead();
    const during = totals.add(record(0.1, { requestId: 'd0' }));
    await reading.started;
    const after = [totals.add(record(0.1, { requestId: 'd1' })), totals.add(record(0.1, { requestId: 'd2' }))];
    reading.release();
    await Promise.all([during, ...after]);
    expect(store.casCalls).toBe(4);
    const answer = await totals.answer(query);
    expect(answer.total).toMatchObject({ requests: 24, billed: { costUsd: 3.3, inputTokens: 240 } });
    expect(Object.fromEntries(Object.entries(answer.groups).map(([k, v]) => [k, v.requests]))).toEqual({ 'team=x': 19, 'team=y': 5 });
  });

  it('adds records to a copy of a day: the same sums as adding in place, the day read from the store untouched', () => {
    const stored = addRecord(addRecord(emptyDay(), record(0.1, { gatewayKey: 'k1', team: 't' })), record(0.2, { deployment: 'b/m' }));
    const before = structuredClone(stored);
    const batch = [record(0.3), record(0.4, { gatewayKey: 'k2', tags: { team: 'y', env: 'prod' } }), record(0.5, { ok: false, outcome: 'endpoint-failure', estimated: true })];
    const next = withRecords(stored, batch);
    // The store's own object (compared by the compare-and-set) is left as it was.
    expect(stored).toEqual(before);
    const inPlace = batch.reduce<DayDoc>(addRecord, structuredClone(before));
    expect(next).toEqual(inPlace);
    // What the batch did not touch is shared, not copied.
    expect(next.deployment['b/m']).toBe(stored.deployment['b/m']);
    expect(next.gatewayKey!.k1).toBe(stored.gatewayKey!.k1);
    expect(withRecords(undefined, batch)).toEqual(batch.reduce<DayDoc>(addRecord, emptyDay()));
  });

  it('writes a batch spanning midnight to both days', async () => {
    const store = new CountingStore();
    const totals = new UsageTotals(store, 'q');
    const first = totals.add(record(1));
    const late = [totals.add(record(2, { at: '2026-12-01T23:59:59.999Z' })), totals.add(record(4, { at: '2026-12-02T00:00:00.000Z' }))];
    await Promise.all([first, ...late]);
    expect(await store.get('q:usage:2026-12-01')).toMatchObject({ total: { requests: 2, billedCostMicros: 3_000_000 } });
    expect(await store.get('q:usage:2026-12-02')).toMatchObject({ total: { requests: 1, billedCostMicros: 4_000_000 } });
  });
});

describe('usage totals and the answer', () => {
  it("an answer does not wait for its totals write; the usage service and the pipeline's close do", async () => {
    const up = await upstream();
    const clock = new VirtualClock(Date.UTC(2026, 11, 1, 10));
    const store = new CountingStore(clock);
    const pipeline = createPipeline({ endpoints: [{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKey: 'sk-a' }], models: { chat: [{ endpoint: 'a', model: 'm0' }] }, plugins: [quota({ ledger: {} })], providers: [testProvider], clock, store });
    /** A chat answered while its totals write waits on the store; `waiter` (a flush, the close) waits for that write. */
    const answeredBefore = async (waiter: () => Promise<unknown>) => {
      const writing = store.holdNextRead();
      await pipeline.chat(ask());
      await writing.started;
      let settled = false;
      const waiting = waiter().then(() => (settled = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      writing.release();
      await waiting;
    };
    try {
      const usage = getService(pipeline, USAGE_SERVICE)!;
      await answeredBefore(() => usage.flush());
      expect(await store.get('quota:usage:2026-12-01')).toMatchObject({ total: { requests: 1 } });
      // A write under way when the pipeline closes ends first.
      await answeredBefore(() => pipeline.close());
      expect(await store.get('quota:usage:2026-12-01')).toMatchObject({ total: { requests: 2 } });
    } finally {
      await pipeline.close();
      await up.server.close();
    }
  });
});
