/**
 * A tap whose work is usually in memory but sometimes waits (a shared store, a half-open
 * breaker's lease): it returns its value when it has it and a promise when it must wait.
 * Registered through tapable's callback form, an answer given at once lets the hook run its next
 * tap in the same tick; a `tapPromise` tap costs a promise and a microtask on every request.
 */

type AsyncHookLike = {
  promise(...args: never[]): Promise<unknown>;
  tapAsync(options: never, fn: never): void;
};

type HookArgs<H extends AsyncHookLike> = Parameters<H['promise']>;
type HookResult<H extends AsyncHookLike> = Awaited<ReturnType<H['promise']>> | undefined;
type Done = (error?: unknown, result?: unknown) => void;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';

/** Taps `fn` on an async hook: a plain value goes on at once, a promise when it settles, a throw as the hook's error. */
export function tapMaybeAsync<H extends AsyncHookLike>(
  hook: H,
  options: Parameters<H['tapAsync']>[0],
  fn: (...args: HookArgs<H>) => HookResult<H> | PromiseLike<HookResult<H>>,
): void {
  const tapAsync = hook.tapAsync.bind(hook) as unknown as (options: unknown, fn: (...args: unknown[]) => void) => void;
  tapAsync(options, (...args: unknown[]) => {
    const done = args.pop() as Done;
    let result: unknown;
    try {
      result = (fn as (...a: unknown[]) => unknown)(...args);
    } catch (error) {
      done(error);
      return;
    }
    if (isThenable(result)) result.then((value) => done(null, value), (error: unknown) => done(error ?? new Error('a tap rejected without a reason')));
    else done(null, result);
  });
}
