/** A key's spend scopes: made once per window and budget, and never stale across a reset or a budget change. */
import { describe, expect, it } from 'vitest';
import { MemoryStateStore, VirtualClock } from '@switchyard/core';
import { SpendCounters, type Caller } from '../src/reservations.js';

const DAY = 86_400_000;

/** A store that records the TTL each counter was last written with. */
class TtlStore extends MemoryStateStore {
  ttls = new Map<string, number | undefined>();
  override increment(key: string, by?: number, ttlMs?: number): Promise<number> {
    this.ttls.set(key, ttlMs);
    return super.increment(key, by, ttlMs);
  }
}

describe('spend scopes', () => {
  const month = { limitUsd: 10, soft: 0.8, hard: 1 };
  const caller: Caller = { keyId: 'k1', keyName: 'one', team: 'blue', budget: { month }, teamBudget: { day: { limitUsd: 5, soft: 0.8, hard: 1 } } };

  it('follow the day and month windows and the budgets, and count each counter with a TTL from its reservation', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 4, 31, 23, 0));
    const store = new TtlStore(clock);
    const counters = new SpendCounters(store, 'p');
    const names = (now: number, who = caller) => counters.scopesOf(who, now).map((s) => `${s.counter}:${s.budget?.limitUsd ?? '-'}`);
    expect(names(clock.now())).toEqual(['p:spend:key:k1:2026-05-31:-', 'p:spend:team:blue:2026-05-31:5', 'p:spend:key:k1:2026-05:10', 'p:spend:team:blue:2026-05:-']);
    // The next request an hour later: the next day and month.
    expect(names(clock.now() + 3_600_000)).toEqual(['p:spend:key:k1:2026-06-01:-', 'p:spend:team:blue:2026-06-01:5', 'p:spend:key:k1:2026-06:10', 'p:spend:team:blue:2026-06:-']);
    // The key moved to another team (with a budget of the same shape): its spend counts on that team's counters at once, never the old team's.
    const moved = { ...caller, team: 'red' };
    expect(names(clock.now() + 3_600_000, moved)).toEqual(['p:spend:key:k1:2026-06-01:-', 'p:spend:team:red:2026-06-01:5', 'p:spend:key:k1:2026-06:10', 'p:spend:team:red:2026-06:-']);
    // A budget changed (the admin API replaces the key's record): the new one counts at once.
    const raised = { ...caller, budget: { month: { limitUsd: 20, soft: 0.8, hard: 1 } } };
    expect(names(clock.now() + 3_600_000, raised)).toEqual(['p:spend:key:k1:2026-06-01:-', 'p:spend:team:blue:2026-06-01:5', 'p:spend:key:k1:2026-06:20', 'p:spend:team:blue:2026-06:-']);
    // Back in the earlier hour (a clock set back): that day's counters again.
    expect(names(clock.now())[0]).toBe('p:spend:key:k1:2026-05-31:-');

    const reservation = await counters.reserve(caller, 1_000, clock.now());
    await clock.advance(1_800_000);
    await counters.settle(reservation, 400, 0);
    // TTLs count from the reservation (the end of its window, plus two days or 35): the settlement half an hour later writes the same.
    expect(store.ttls.get('p:spend:team:blue:2026-05-31')).toBe(3_600_000 + 2 * DAY);
    expect(store.ttls.get('p:spend:key:k1:2026-05')).toBe(3_600_000 + 35 * DAY);
    expect(await store.get('p:spend:key:k1:2026-05')).toBe(400);
    expect(await store.get('p:spend:team:blue:2026-05-31')).toBe(400);
  });
});
