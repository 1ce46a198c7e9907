/**
 * Record taps are contained: a throwing observer never fails a request. A tap that enforces
 * something (a quota or budget charge) registers with `failClosed(...)` instead, and when it
 * throws the request is refused with a coded error, so nothing is ever served uncharged.
 */
import type { PipelineHooks } from './contract.js';
import { SwitchyardError } from './errors.js';
import type { SwitchyardEventBus } from './events.js';

export const FAILED_CLOSED_CODE = 'SWITCHYARD_ERR_PLUGIN_FAILED_CLOSED';

/** Tap options for a record tap whose failure must refuse the request: `hook.tapPromise(failClosed({ name }), fn)`. */
export function failClosed<T extends { name: string; stage?: number }>(options: T): T {
  return { ...options, failClosed: true };
}

/** The refusal for a fail-closed tap that threw, or undefined for an ordinary (contained) tap. */
export function failClosedError(tap: { name: string }, stage: string, error: unknown): SwitchyardError | undefined {
  if ((tap as { failClosed?: unknown }).failClosed !== true) return undefined;
  const reason = error instanceof Error ? error.message : String(error);
  return new SwitchyardError('plugin', `${tap.name} failed in ${stage} (${reason}); the request is refused rather than served uncharged`, { code: FAILED_CLOSED_CODE, retryable: false, cause: error });
}

const noop = () => undefined;

/**
 * Wraps every record tap and close tap as it is registered: its failure is reported as a
 * `plugin-error` event and swallowed, or, for a fail-closed tap, turned into the request's
 * refusal (a close tap that fails leaves the others to finish before the store closes). A tap
 * keeps its kind (sync, callback or promise), so one that answers at once adds no promise.
 */
export function containRecordTaps(hooks: PipelineHooks, events: SwitchyardEventBus): void {
  for (const [stage, hook] of [['recordAttempt', hooks.recordAttempt], ['recordRequest', hooks.recordRequest], ['close', hooks.close]] as const) {
    hook.intercept({
      register: (tap) => {
        const fn = tap.fn as (...args: unknown[]) => unknown;
        const contain = (error: unknown): void => {
          events.emit('plugin-error', { plugin: tap.name, stage, error });
          const refusal = failClosedError(tap, stage, error);
          if (refusal) throw refusal;
        };
        // A synchronous tap (in-memory bookkeeping) stays synchronous: no promise per request.
        if (tap.type === 'sync') {
          return {
            ...tap,
            fn: (...args: unknown[]) => {
              try {
                fn(...args);
              } catch (error) {
                contain(error);
              }
            },
          };
        }
        // A callback tap (tapMaybeAsync) that answered at once goes on at once.
        if (tap.type === 'async') {
          return {
            ...tap,
            fn: (...args: unknown[]) => {
              const done = args.pop() as (error?: unknown) => void;
              const failed = (error: unknown) => {
                try {
                  contain(error);
                } catch (refusal) {
                  return done(refusal);
                }
                done();
              };
              try {
                fn(...args, (error?: unknown) => (error ? failed(error) : done()));
              } catch (error) {
                failed(error);
              }
            },
          };
        }
        return {
          ...tap,
          fn: (...args: unknown[]) => {
            let result: unknown;
            try {
              result = fn(...args);
            } catch (error) {
              return Promise.resolve().then(() => contain(error));
            }
            return Promise.resolve(result).then(noop, contain);
          },
        };
      },
    });
  }
}
