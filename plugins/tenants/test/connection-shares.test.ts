import { describe, expect, it } from 'vitest';
import { VirtualClock, isSwitchyardError } from '@switchyard/core';
import { AbortLink } from '@switchyard/core/internal';
import { ConnectionShares, type Release } from '../src/connection-shares.js';

const ORIGIN = 'https://api.example.test';
const limits = { perKey: 2, connections: 4, share: 0.5, queueMs: 2_000 };
const never = () => () => undefined;

describe('connection shares', () => {
  it('a key past its share waits for one of its own slots; another key is not held up', async () => {
    const clock = new VirtualClock();
    const shares = new ConnectionShares(limits, clock);
    const first = shares.acquire(ORIGIN, 'a', 10_000, never) as Release;
    shares.acquire(ORIGIN, 'a', 10_000, never);
    expect(shares.acquire(ORIGIN, 'b', 10_000, never)).toBeTypeOf('function');
    const third = shares.acquire(ORIGIN, 'a', 10_000, never);
    expect(third).toBeInstanceOf(Promise);
    await clock.advance(1_000);
    first();
    first(); // a second release gives nothing back twice
    await expect(third).resolves.toBeTypeOf('function');
    expect(shares.held(ORIGIN, 'a')).toBe(2);
  });

  it('the wait is the shorter of queueMs and the time left; then a coded 429 naming the share, with nothing held', async () => {
    const clock = new VirtualClock();
    const shares = new ConnectionShares(limits, clock);
    shares.acquire(ORIGIN, 'a', 10_000, never);
    shares.acquire(ORIGIN, 'a', 10_000, never);
    const waiting = shares.acquire(ORIGIN, 'a', 500, never) as Promise<Release>;
    const settled = waiting.then(() => 'granted', (e: unknown) => e);
    await clock.advance(499);
    await clock.advance(1);
    const error = await settled;
    expect(isSwitchyardError(error) && error).toMatchObject({ code: 'SWITCHYARD_ERR_CONNECTION_SHARE', status: 429 });
    expect(String((error as Error).message)).toContain('at most 2 of 4 (50 %)');
    expect(shares.held(ORIGIN, 'a')).toBe(2);
  });

  it('an attempt aborted while it waits leaves the queue: the next release goes to the one behind it', async () => {
    const clock = new VirtualClock();
    const shares = new ConnectionShares(limits, clock);
    const r1 = shares.acquire(ORIGIN, 'a', 10_000, never) as Release;
    shares.acquire(ORIGIN, 'a', 10_000, never);
    const link = new AbortLink();
    const aborted = (shares.acquire(ORIGIN, 'a', 10_000, (l) => link.onAbort(l)) as Promise<Release>).catch((e: unknown) => e);
    const behind = shares.acquire(ORIGIN, 'a', 10_000, never) as Promise<Release>;
    link.abort();
    expect(await aborted).toMatchObject({ kind: 'cancelled' });
    r1();
    await expect(behind).resolves.toBeTypeOf('function');
    expect(shares.held(ORIGIN, 'a')).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });
});
