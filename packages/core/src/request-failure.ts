/**
 * Failures before a request leaves the process are the request's own: a provider codec that
 * cannot build the vendor request (an unsupported field, a schema too large to convert, a body
 * that cannot be serialised) refuses it with a coded 400 that no policy retries or counts
 * against a deployment, a key or a breaker.
 */
import { isSwitchyardError, outcomeOf, SwitchyardError } from './errors.js';

export const REQUEST_UNSENT_CODE = 'SWITCHYARD_ERR_REQUEST_UNSENT';

/** Marks an error raised before the request left (a `Symbol.for` so every copy of core agrees). */
const UNSENT = Symbol.for('switchyard.unsent');

/** Runs a codec's request builder; anything it throws becomes an `invalid-request` error. */
export function buildOrRefuse<T>(providerId: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw unsentRequestError(providerId, error);
  }
}

export function unsentRequestError(providerId: string, error: unknown): SwitchyardError {
  // Misconfiguration stays the operator's problem; a codec's own coded refusal keeps its kind.
  if (isSwitchyardError(error) && (error.kind === 'config' || outcomeOf(error) === 'request-failure')) return markUnsent(error);
  return markUnsent(new SwitchyardError('invalid-request', `${providerId} could not build the upstream request: ${describe(error)}`, {
    code: REQUEST_UNSENT_CODE,
    status: 400,
    retryable: false,
    provider: providerId,
    path: isSwitchyardError(error) ? error.path : undefined,
    cause: error,
  }));
}

function markUnsent(error: SwitchyardError): SwitchyardError {
  (error as unknown as Record<symbol, boolean>)[UNSENT] = true;
  return error;
}

/** True for an attempt that never reached the vendor (nothing to bill, nothing to count). */
export function isUnsentFailure(error: unknown): boolean {
  return isSwitchyardError(error) && (error as unknown as Record<symbol, unknown>)[UNSENT] === true;
}

function describe(error: unknown): string {
  if (error instanceof RangeError) return 'the request is nested too deeply';
  return error instanceof Error ? error.message : String(error);
}
