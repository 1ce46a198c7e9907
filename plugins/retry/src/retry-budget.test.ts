import { describe, expect, it } from 'vitest';
import { MemoryStateStore, VirtualClock } from '@switchyard/core';
import { RetryBudget } from './retry-budget.js';

function setup() {
  const clock = new VirtualClock(0);
  const budget = new RetryBudget(new MemoryStateStore(clock), clock, { ratio: 0.2, minRetries: 3, windowMs: 10_000, buckets: 10 });
  return { clock, budget };
}

async function withdrawAll(budget: RetryBudget, id: string, max = 1000): Promise<number> {
  let n = 0;
  while (n < max && (await budget.tryWithdraw(id))) n++;
  return n;
}

describe('RetryBudget', () => {
  it('allows the floor when there is no traffic', async () => {
    const { budget } = setup();
    expect(await withdrawAll(budget, 'a/x')).toBe(3);
    expect(await budget.snapshot('a/x')).toEqual({ requests: 0, retries: 3, allowed: 3 });
  });

  it('allows 20 % of the requests on top of the floor, per deployment', async () => {
    const { budget } = setup();
    for (let i = 0; i < 100; i++) await budget.recordRequest('a/x');
    expect(await withdrawAll(budget, 'a/x')).toBe(23);
    expect(await withdrawAll(budget, 'b/y')).toBe(3);
  });

  it('slides: retries and requests older than the window stop counting', async () => {
    const { clock, budget } = setup();
    expect(await withdrawAll(budget, 'a/x')).toBe(3);
    await clock.advance(5_000);
    expect(await budget.tryWithdraw('a/x')).toBe(false);
    await clock.advance(5_000);
    expect(await withdrawAll(budget, 'a/x')).toBe(3);
  });

  it('forgets everything after an idle gap of an hour', async () => {
    const { clock, budget } = setup();
    for (let i = 0; i < 50; i++) await budget.recordRequest('a/x');
    await withdrawAll(budget, 'a/x');
    await clock.advance(3_600_000);
    expect(await budget.snapshot('a/x')).toEqual({ requests: 0, retries: 0, allowed: 3 });
  });

  it('a refused withdrawal does not use up budget', async () => {
    const { budget } = setup();
    await withdrawAll(budget, 'a/x');
    for (let i = 0; i < 10; i++) await budget.tryWithdraw('a/x');
    for (let i = 0; i < 5; i++) await budget.recordRequest('a/x');
    expect(await budget.tryWithdraw('a/x')).toBe(true);
  });

  it('counts requests in memory: one store write per bucket, and the next bucket makes them visible to other instances', async () => {
    const clock = new VirtualClock(0);
    const store = new MemoryStateStore(clock);
    let writes = 0;
    const increment = store.increment.bind(store);
    store.increment = (key, by, ttl) => {
      writes++;
      return increment(key, by, ttl);
    };
    const options = { ratio: 0.2, minRetries: 3, windowMs: 10_000, buckets: 10 };
    const here = new RetryBudget(store, clock, options);
    const there = new RetryBudget(store, clock, options);
    for (let i = 0; i < 100; i++) here.recordRequest('a/x');
    expect(writes).toBe(0);
    await clock.advance(1_000);
    here.recordRequest('a/x');
    await Promise.resolve();
    expect(writes).toBe(1);
    expect((await there.snapshot('a/x')).requests).toBe(100);
    // The instance that counted sees its own unwritten requests at once.
    expect((await here.snapshot('a/x')).requests).toBe(101);
  });
});
