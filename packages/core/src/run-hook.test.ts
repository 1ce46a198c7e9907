import { describe, expect, it } from 'vitest';
import { AsyncParallelHook, AsyncSeriesWaterfallHook } from 'tapable';
import { runHook } from './run-hook.js';
import { tapMaybeAsync } from './tap-maybe-async.js';

describe('runHook', () => {
  it('hands back the value itself when every tap answered at once', () => {
    const hook = new AsyncSeriesWaterfallHook<[number]>(['n']);
    hook.tap('double', (n) => n * 2);
    tapMaybeAsync(hook, { name: 'plus one' }, (n) => n + 1);
    expect(runHook(hook, 5)).toBe(11);
  });

  it('hands back a promise of the value when a tap waits', async () => {
    const hook = new AsyncSeriesWaterfallHook<[number]>(['n']);
    hook.tap('double', (n) => n * 2);
    hook.tapPromise('later', async (n) => n + 1);
    const result = runHook(hook, 5);
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe(11);
  });

  it('throws at once a tap that failed at once, and rejects with a tap that failed later', async () => {
    const now = new AsyncParallelHook<[number]>(['n']);
    now.tap('fails', () => {
      throw new Error('sync boom');
    });
    expect(() => runHook(now, 1)).toThrow('sync boom');

    const later = new AsyncParallelHook<[number]>(['n']);
    later.tapPromise('fails', () => Promise.reject(new Error('async boom')));
    await expect(runHook(later, 1)).rejects.toThrow('async boom');
  });
});
