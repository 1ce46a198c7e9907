import { VirtualClock } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { Heartbeats } from './heartbeats.js';

describe('Heartbeats', () => {
  it('each waiting stream beats exactly every interval from when it began waiting, until it stops', async () => {
    const clock = new VirtualClock();
    const heartbeats = new Heartbeats(clock, 100);
    const start = clock.now();
    const beats: Record<string, number[]> = { a: [], b: [], c: [] };
    const a = heartbeats.start(() => beats.a.push(clock.now() - start));
    await clock.advance(30);
    const b = heartbeats.start(() => beats.b.push(clock.now() - start));
    await clock.advance(40);
    const c = heartbeats.start(() => beats.c.push(clock.now() - start));
    await clock.advance(180);
    b.stop();
    await clock.advance(200);
    a.stop();
    c.stop();
    await clock.advance(500);
    expect(beats).toEqual({ a: [100, 200, 300, 400], b: [130, 230], c: [170, 270, 370] });
    expect(heartbeats.waiting).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('streams that commit before their first beat cost no timer of their own: one for the queue', async () => {
    const clock = new VirtualClock();
    const heartbeats = new Heartbeats(clock, 5_000);
    let beaten = 0;
    for (let i = 0; i < 1_000; i++) {
      const wait = heartbeats.start(() => beaten++);
      await clock.advance(1);
      wait.stop();
    }
    expect(clock.timersSet()).toBe(1);
    await clock.advance(10_000);
    expect(beaten).toBe(0);
    // The one timer fired once, found nothing waiting and left nothing armed.
    expect(clock.pendingTimers()).toBe(0);
    expect(clock.timersSet()).toBe(1);
  });

  it('a stream stopped from the middle of the queue leaves the others in order; stopping twice is harmless', async () => {
    const clock = new VirtualClock();
    const heartbeats = new Heartbeats(clock, 50);
    const order: string[] = [];
    const waits = ['a', 'b', 'c', 'd'].map((name) => heartbeats.start(() => order.push(name)));
    waits[1].stop();
    waits[1].stop();
    waits[3].stop();
    await clock.advance(50);
    expect(order).toEqual(['a', 'c']);
    expect(heartbeats.waiting).toBe(2);
    waits[0].stop();
    waits[2].stop();
    expect(heartbeats.waiting).toBe(0);
  });

  it('an interval of 0 is taken as 1 ms: a firing beats each wait once and ends', async () => {
    const clock = new VirtualClock();
    const heartbeats = new Heartbeats(clock, 0);
    let beaten = 0;
    const wait = heartbeats.start(() => beaten++);
    await clock.advance(3);
    wait.stop();
    expect(beaten).toBe(3);
  });

  it('a beat that throws does not stop the others', async () => {
    const clock = new VirtualClock();
    const heartbeats = new Heartbeats(clock, 10);
    let beaten = 0;
    heartbeats.start(() => {
      throw new Error('socket gone');
    });
    heartbeats.start(() => beaten++);
    await clock.advance(30);
    expect(beaten).toBe(3);
  });
});
