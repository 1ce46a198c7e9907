import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@switchyard/core';
import { BodyDeadlines } from './body-deadlines.js';

describe('body deadlines', () => {
  it('expire a body between its limit and a quarter past it, once, and not one that finished', async () => {
    const clock = new VirtualClock();
    const deadlines = new BodyDeadlines(clock, 1000);
    const expired: string[] = [];
    const slow = {};
    const quick = {};
    deadlines.watch(slow, () => expired.push('slow'));
    deadlines.watch(quick, () => expired.push('quick'));
    await clock.advance(500);
    deadlines.done(quick);
    await clock.advance(499);
    expect(expired).toEqual([]);
    await clock.advance(250);
    expect(expired).toEqual(['slow']);
    await clock.advance(5000);
    expect(expired).toEqual(['slow']);
  });

  it('watches with one timer for every body, and none once no body is pending', async () => {
    const clock = new VirtualClock();
    let timers = 0;
    const counting = Object.assign(Object.create(clock), { setTimeout: (fn: () => void, ms: number) => (timers++, clock.setTimeout(fn, ms)) });
    const deadlines = new BodyDeadlines(counting, 400);
    for (let i = 0; i < 50; i++) deadlines.watch({}, () => undefined);
    expect(timers).toBe(1);
    await clock.advance(10_000);
    const after = timers;
    await clock.advance(10_000);
    expect(timers).toBe(after);
  });
});
