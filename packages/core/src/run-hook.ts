/**
 * Runs an async hook on the request path. tapable's `promise()` wraps every run in a promise of
 * its own, and the caller's `await` adds a microtask, even when every tap answered at once (a
 * synchronous tap, or a `tapMaybeAsync` tap with its value in hand). `runHook` runs the hook
 * through its callback form and hands back the value itself when the run finished in the same
 * tick, and a promise only when a tap waited.
 */

type AsyncHookLike = { promise(...args: never[]): Promise<unknown> };
type Result<H extends AsyncHookLike> = Awaited<ReturnType<H['promise']>>;

export function runHook<H extends AsyncHookLike>(hook: H, ...args: Parameters<H['promise']>): Result<H> | Promise<Result<H>> {
  let finished = false;
  let failure: unknown;
  let value: unknown;
  let settle: ((error: unknown, result: unknown) => void) | undefined;
  (hook as unknown as { callAsync(...a: unknown[]): void }).callAsync(...args, (error: unknown, result: unknown) => {
    if (settle) return settle(error, result);
    finished = true;
    failure = error;
    value = result;
  });
  if (finished) {
    if (failure) throw failure;
    return value as Result<H>;
  }
  return new Promise((resolve, reject) => {
    settle = (error, result) => (error ? reject(error) : resolve(result as Result<H>));
  });
}
