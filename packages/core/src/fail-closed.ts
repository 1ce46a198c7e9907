/**
 * Record taps are contained: a throwing observer never fails a request. A tap that enforces
 * something (a quota or budget charge) registers with `failClosed(...)` instead, and when it
 * throws the request is refused with a coded error, so nothing is ever served uncharged.
 */
import { SwitchyardError } from './errors.js';

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
