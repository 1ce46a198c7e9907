import { describe, expect, it } from 'vitest';
import { VirtualClock } from './clock.js';
import { RequestTimer } from './request-timer.js';
import type { SwitchyardError } from './errors.js';

const turn = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('RequestTimer', () => {
  it('an attempt limit set in the turn the request starts arms one timer, not the deadline and then the limit', async () => {
    const clock = new VirtualClock();
    const deadlines: SwitchyardError[] = [];
    const aborted: unknown[] = [];
    const timer = new RequestTimer(clock, clock.now() + 60_000, (error) => deadlines.push(error));
    timer.setPhase('headers', 1_000, { abort: (reason) => aborted.push(reason) });
    await turn();
    expect(clock.timersSet()).toBe(1);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(1_000);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]).toMatchObject({ kind: 'timeout' });
    // The deadline is picked up when the limit's timer fires.
    await clock.advance(59_000);
    expect(deadlines.map((e) => e.code)).toEqual(['SWITCHYARD_ERR_DEADLINE']);
    timer.dispose();
  });

  it('a request whose hooks wait still gets its deadline: armed at the end of the turn, before any timer could fire', async () => {
    const clock = new VirtualClock();
    const deadlines: SwitchyardError[] = [];
    new RequestTimer(clock, clock.now() + 5_000, (error) => deadlines.push(error));
    expect(clock.pendingTimers()).toBe(0);
    await turn();
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(4_999);
    expect(deadlines).toHaveLength(0);
    await clock.advance(1);
    expect(deadlines).toHaveLength(1);
  });

  it('a request over within its first turn leaves no timer behind', async () => {
    const clock = new VirtualClock();
    const timer = new RequestTimer(clock, clock.now() + 5_000, () => undefined);
    timer.dispose();
    await turn();
    expect(clock.timersSet()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});
