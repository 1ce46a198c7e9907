import { describe, expect, it } from 'vitest';
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook } from 'tapable';
import { tapMaybeAsync } from './tap-maybe-async.js';

describe('tapMaybeAsync', () => {
  it('goes on in the same tick when the tap answers at once', () => {
    const hook = new AsyncSeriesWaterfallHook<[number]>(['n']);
    const order: string[] = [];
    tapMaybeAsync(hook, { name: 'double' }, (n) => {
      order.push(`double ${n}`);
      return n * 2;
    });
    hook.tap('plus one', (n) => {
      order.push(`plus one ${n}`);
      return n + 1;
    });
    let result: number | undefined;
    hook.callAsync(5, (_error, value) => {
      result = value;
    });
    // Nothing was queued: the whole hook ran before callAsync returned.
    expect(order).toEqual(['double 5', 'plus one 10']);
    expect(result).toBe(11);
  });

  it('waits for a promise, keeps the value on undefined, and bails on a bail hook', async () => {
    const waterfall = new AsyncSeriesWaterfallHook<[string]>(['s']);
    tapMaybeAsync(waterfall, { name: 'later' }, async (s) => `${s}!`);
    tapMaybeAsync(waterfall, { name: 'keeps' }, () => undefined);
    expect(await waterfall.promise('hi')).toBe('hi!');

    const bail = new AsyncSeriesBailHook<[number], string | undefined>(['n']);
    const ran: string[] = [];
    tapMaybeAsync(bail, { name: 'abstains' }, () => {
      ran.push('abstains');
      return undefined;
    });
    tapMaybeAsync(bail, { name: 'decides' }, (n) => (n > 1 ? Promise.resolve('big') : 'small'));
    tapMaybeAsync(bail, { name: 'never' }, () => {
      ran.push('never');
      return 'late';
    });
    expect(await bail.promise(2)).toBe('big');
    expect(await bail.promise(0)).toBe('small');
    expect(ran).toEqual(['abstains', 'abstains']);
  });

  it('turns a throw or a rejection into the hook error', async () => {
    for (const fail of [
      () => {
        throw new Error('sync boom');
      },
      () => Promise.reject(new Error('async boom')),
    ]) {
      const hook = new AsyncParallelHook<[number]>(['n']);
      tapMaybeAsync(hook, { name: 'fails' }, fail);
      await expect(hook.promise(1)).rejects.toThrow(/boom/);
    }
  });
});
