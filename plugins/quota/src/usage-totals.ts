/**
 * Running usage totals in the StateStore: one document per UTC day, updated by
 * compare-and-set, so several gateways on one Redis keep one exact set of books and a
 * restart on Redis loses nothing. While a shared store says it is unavailable (store-redis'
 * `available`), records wait here and are added once it answers again, so an outage delays the
 * totals instead of losing them to the store's local fallback.
 */
import type { StateStore } from '@switchyard/core';
import { addRecord, answerFrom, dayOf, daysBetween, emptyDay, type DayDoc, type UsageAnswer, type UsageQuery, type UsageRecord } from './usage-record.js';

const KEEP_DAYS = 400;
const MAX_ROUNDS = 16;
/** Records held during an outage; beyond this the oldest are dropped (the usage log still has them). */
const MAX_WAITING = 100_000;

export class UsageTotals {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly waiting: UsageRecord[] = [];

  constructor(
    private readonly store: StateStore,
    private readonly prefix: string,
  ) {}

  private key(day: string): string {
    return `${this.prefix}:usage:${day}`;
  }

  /** Adds a record; updates from this process run one at a time (fewer compare-and-set retries). */
  add(record: UsageRecord): Promise<void> {
    const run = this.chain.then(() => this.write(record));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private get storeDown(): boolean {
    return (this.store as { available?: boolean }).available === false;
  }

  private async write(record: UsageRecord): Promise<void> {
    if (this.storeDown) {
      if (this.waiting.push(record) > MAX_WAITING) this.waiting.shift();
      return;
    }
    await this.drain();
    await this.writeNow(record);
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0 && !this.storeDown) await this.writeNow(this.waiting.shift()!);
  }

  private async writeNow(record: UsageRecord): Promise<void> {
    const key = this.key(dayOf(record.at));
    const ttl = KEEP_DAYS * 86_400_000;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await this.store.get<DayDoc>(key);
      const next = addRecord(structuredClone(current) ?? emptyDay(), record);
      if (!this.store.compareAndSet) return void (await this.store.set(key, next, ttl));
      if (await this.store.compareAndSet(key, current, next, ttl)) return;
    }
    throw new Error(`usage totals: ${key} kept changing under ${MAX_ROUNDS} concurrent writers`);
  }

  async answer(query: UsageQuery): Promise<UsageAnswer> {
    const drained = this.chain.then(() => this.drain());
    this.chain = drained.catch(() => undefined);
    await drained;
    const days = new Map<string, DayDoc>();
    for (const day of daysBetween(query.since, query.until)) {
      const doc = await this.store.get<DayDoc>(this.key(day));
      if (doc) days.set(day, doc);
    }
    return answerFrom(query, days);
  }
}
