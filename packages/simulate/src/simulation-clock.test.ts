import { describe, expect, it } from 'vitest';
import { sleep, VirtualClock } from '@switchyard/core';
import { SimulationClock } from './simulation-clock.js';

/** A promise chain far deeper than a few microtask turns, as a pipeline's stages are. */
async function deepChain(depth: number): Promise<void> {
  for (let i = 0; i < depth; i++) await Promise.resolve();
}

describe('SimulationClock', () => {
  it('fires timers in time order, equal times in creation order, and skips cleared ones', async () => {
    const clock = new SimulationClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => fired.push('a@10'), 10);
    clock.setTimeout(() => fired.push('c@20'), 20);
    const cleared = clock.setTimeout(() => fired.push('cleared'), 15);
    clock.clearTimeout(cleared);
    clock.clearTimeout(cleared);
    expect(clock.pendingTimers()).toBe(3);
    await clock.runUntil(100);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.now()).toBe(100);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('lets deep promise chains settle before the next timer fires (VirtualClock does not)', async () => {
    const observe = async (clock: SimulationClock | VirtualClock, run: () => Promise<unknown>) => {
      const seen: number[] = [];
      clock.setTimeout(() => {
        void deepChain(50).then(() => seen.push(clock.now()));
      }, 10);
      clock.setTimeout(() => undefined, 1_000);
      await run();
      return seen;
    };
    const sim = new SimulationClock(0);
    expect(await observe(sim, () => sim.runUntil(2_000))).toEqual([10]);
    const virtual = new VirtualClock(0);
    // With only a few microtask turns between timers, the chain ends after the later timer.
    expect(await observe(virtual, () => virtual.advance(2_000))).not.toEqual([10]);
  });

  it('runs timers that timers schedule, and stops at the bound', async () => {
    const clock = new SimulationClock(0);
    const ticks: number[] = [];
    const tick = () => {
      ticks.push(clock.now());
      clock.setTimeout(tick, 30);
    };
    clock.setTimeout(tick, 30);
    await clock.runUntil(100);
    expect(ticks).toEqual([30, 60, 90]);
    expect(clock.nextAt()).toBe(120);
    expect(await clock.step()).toBe(true);
    expect(ticks.at(-1)).toBe(120);
  });

  it('drives core sleep() and stops early when asked', async () => {
    const clock = new SimulationClock(1_000);
    let woke = 0;
    void sleep(clock, 5_000).then(() => (woke = clock.now()));
    clock.setTimeout(() => undefined, 10_000);
    const finished = await clock.runUntil(20_000, { afterEach: () => clock.now() >= 6_000 });
    expect(woke).toBe(6_000);
    expect(finished).toBe(false);
    expect(clock.now()).toBe(6_000);
  });
});
