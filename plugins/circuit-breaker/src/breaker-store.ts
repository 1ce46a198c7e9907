/**
 * Breaker records and probe leases in the StateStore; a shared store (Redis) shares the records
 * and the single-probe lease between gateway instances. Updates to one breaker are serialised
 * in-process (read, step, write), so concurrent attempts never lose a count; on a store with
 * compareAndSet the write only lands if no other instance wrote since the read, else the step is
 * run again on the fresh record, so instances never lose each other's counts either.
 */
import { type Clock, type RandomSource, type StateStore } from '@switchyard/core';
import { readManyNow } from '@switchyard/core/internal';
import { closedRecord, phaseAt, startProbe, windowStats, withSuccesses, type BreakerOptions, type BreakerPhase, type BreakerRecord, type Step } from './state-machine.js';

export interface BreakerState {
  state: BreakerPhase;
  /** Endpoint failures in a row. */
  failures: number;
  /** When the open period ends (0 when closed). */
  openUntil: number;
  /** Trips since the last success. */
  trips: number;
  /** Calls and failures in the current window. */
  window: { calls: number; failures: number };
  forced: boolean;
}

const PREFIX = 'switchyard:breaker:';

/** A request's admission to one breaker: closed, the half-open probe, or refused. */
export type Verdict = 'closed' | 'probe' | false;

const noop = () => undefined;

/**
 * Read-step-compare rounds before an update gives up comparing and writes anyway (the behaviour
 * of a store without compareAndSet). The in-process queue leaves one contender per instance, so
 * losing this many rounds in a row takes a storm of writes from many instances at once.
 */
export const MAX_CAS_ROUNDS = 16;

export class BreakerStore {
  private readonly queues = new Map<string, Promise<unknown>>();
  /**
   * Successes on a closed breaker with no failure streak change nothing but a window count:
   * they are counted here, per bucket, and written with the next step that changes the record
   * (a failure, a new bucket, a forced state), so the healthy path does no store write.
   */
  private readonly unwritten = new Map<string, { start: number; successes: number }>();
  /** Each deployment's record key, built once: a key string used again has its hash already (a new one per read cost the in-process store a hash of it, three times a request). */
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    /** Told of each transition that landed (the plugin calls its hooks and emits its events). */
    private readonly onTransition: (deploymentId: string, step: Step) => void,
    readonly options: BreakerOptions & { probeLeaseMs: number },
  ) {}

  async read(id: string): Promise<BreakerRecord> {
    return (await this.store.get<BreakerRecord>(this.keyOf(id))) ?? closedRecord();
  }

  async phase(id: string): Promise<BreakerPhase> {
    return phaseAt(await this.read(id), this.clock.now());
  }

  async state(id: string): Promise<BreakerState> {
    const now = this.clock.now();
    const record = this.withUnwritten(id, await this.read(id), now);
    return {
      state: phaseAt(record, now),
      failures: record.consecutiveFailures,
      openUntil: record.state === 'closed' ? 0 : record.openUntil,
      trips: record.trips,
      window: windowStats(record, now, this.options),
      forced: record.forced === true,
    };
  }

  /**
   * A success: counted in-process when it changes no state (see `unwritten`), else a step.
   * Answered at once (no promise) when the store is in this process and the count is all it takes.
   * `at`: when the attempt succeeded, on this store's clock, for a count made at once; a count
   * after a store's round trip reads the clock then, so that the buckets only move forward.
   */
  recordSuccess(id: string, step: (record: BreakerRecord, now: number, random: RandomSource) => Step, at?: number): void | Promise<void> {
    if (this.queues.has(id)) return this.update(id, step).then(noop);
    const records = readManyNow<BreakerRecord>(this.store, [this.keyOf(id)]);
    if (Array.isArray(records)) return this.countSuccess(id, records[0], step, at);
    return records.then(([record]) => this.countSuccess(id, record, step, undefined));
  }

  private countSuccess(id: string, stored: BreakerRecord | undefined, step: (record: BreakerRecord, now: number, random: RandomSource) => Step, at: number | undefined): void | Promise<void> {
    const record = stored ?? closedRecord();
    if (record.state !== 'closed' || record.consecutiveFailures !== 0 || this.queues.has(id)) return this.update(id, step).then(noop);
    const now = at ?? this.clock.now();
    const bucketMs = this.options.windowMs / this.options.buckets;
    const start = Math.floor(now / bucketMs) * bucketMs;
    const pending = this.unwritten.get(id);
    if (!pending) this.unwritten.set(id, { start, successes: 1 });
    else if (pending.start === start) pending.successes++;
    else {
      // A new bucket: the finished one is written once (its count is shared state).
      return this.update(id, (r) => ({ record: r })).then(() => {
        const fresh = this.unwritten.get(id);
        if (fresh?.start === start) fresh.successes++;
        else this.unwritten.set(id, { start, successes: 1 });
      });
    }
  }

  private withUnwritten(id: string, record: BreakerRecord, now: number): BreakerRecord {
    const pending = this.unwritten.get(id);
    return pending ? withSuccesses(record, pending, now, this.options) : record;
  }

  /** Applies one step to a breaker and announces its transition. */
  update(id: string, step: (record: BreakerRecord, now: number, random: RandomSource) => Step): Promise<Step> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    // Queued even when the store compares: contention is then between instances, not between
    // every concurrent attempt of this one.
    const run = previous.then(() => this.apply(id, step));
    const tail = run.catch(() => undefined);
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return run;
  }

  /** One update; announces the transition of the write that landed, never of a refused one. */
  private async apply(id: string, step: (record: BreakerRecord, now: number, random: RandomSource) => Step): Promise<Step> {
    const key = this.keyOf(id);
    for (let round = 1; ; round++) {
      const stored = await this.store.get<BreakerRecord>(key);
      const now = this.clock.now();
      const pending = this.unwritten.get(id);
      const taken = pending ? { start: pending.start, successes: pending.successes } : undefined;
      const base = stored ?? closedRecord();
      const result = step(taken ? withSuccesses(base, taken, now, this.options) : base, now, this.random);
      if (this.store.compareAndSet && round < MAX_CAS_ROUNDS) {
        if (!(await this.store.compareAndSet(key, stored, result.record))) continue;
      } else {
        await this.store.set(key, result.record);
      }
      // Written with this step; successes counted meanwhile stay for the next write.
      if (pending && taken) {
        pending.successes -= taken.successes;
        if (pending.successes <= 0 && this.unwritten.get(id) === pending) this.unwritten.delete(id);
      }
      this.onTransition(id, result);
      return result;
    }
  }

  /**
   * Admission for one request: closed → yes; open → no; half-open → only for the request that
   * takes the probe lease (it expires after probeLeaseMs if the probe never reports back).
   */
  async admit(id: string, holder: string): Promise<Verdict> {
    return (await this.admitEach([id], holder))[0];
  }

  /**
   * Admission for several breakers: their records in one store read; only half-open ones go on
   * to the lease. Answered at once (no promise) when the store is in this process and no breaker
   * is half-open.
   */
  admitEach(ids: readonly string[], holder: string): Verdict[] | Promise<Verdict[]> {
    const records = readManyNow<BreakerRecord>(this.store, ids.map((id) => this.keyOf(id)));
    if (Array.isArray(records)) return this.verdicts(ids, records, holder);
    return records.then((read) => this.verdicts(ids, read, holder));
  }

  private verdicts(ids: readonly string[], records: (BreakerRecord | undefined)[], holder: string): Verdict[] | Promise<Verdict[]> {
    const now = this.clock.now();
    let halfOpen = false;
    const verdicts = ids.map((_, i): Verdict | 'half-open' => {
      const phase = phaseAt(records[i] ?? closedRecord(), now);
      if (phase === 'half-open') halfOpen = true;
      return phase === 'closed' ? 'closed' : phase === 'open' ? false : 'half-open';
    });
    if (!halfOpen) return verdicts as Verdict[];
    return Promise.all(verdicts.map((v, i) => (v === 'half-open' ? this.takeProbe(ids[i], holder) : v)));
  }

  private async takeProbe(id: string, holder: string): Promise<'probe' | false> {
    if (!(await this.store.acquireLease(this.leaseKey(id), holder, this.options.probeLeaseMs))) return false;
    await this.update(id, (record, now) => startProbe(record, now));
    return 'probe';
  }

  async releaseProbe(id: string, holder: string): Promise<void> {
    await this.store.releaseLease(this.leaseKey(id), holder);
  }

  private keyOf(id: string): string {
    let key = this.keys.get(id);
    if (key === undefined) {
      if (this.keys.size >= 4096) this.keys.clear(); // deployments come from config: a bound, not a cache policy
      this.keys.set(id, (key = PREFIX + id));
    }
    return key;
  }

  private leaseKey(id: string): string {
    return `${PREFIX}${id}:probe`;
  }

}
