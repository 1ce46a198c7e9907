/** Socket-level failures mapped to the error taxonomy (shared by the transport and its response handler). */
import { SwitchyardError, isSwitchyardError } from './errors.js';

/** Maps socket-level failures to the taxonomy; an abort carries the pipeline's own reason. */
export function transportError(error: unknown, signal: { readonly aborted: boolean; readonly reason?: unknown }): SwitchyardError {
  if (signal.aborted) {
    const reason = signal.reason;
    if (isSwitchyardError(reason)) return reason;
    return new SwitchyardError('cancelled', 'request was cancelled', { cause: reason });
  }
  if (isSwitchyardError(error)) return error;
  const code = (error as { code?: string } | undefined)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new SwitchyardError('timeout', `upstream timed out (${code})`, { cause: error });
  }
  return new SwitchyardError('network', `connection failed: ${code ? `${code} ` : ''}${message}`, { cause: error });
}
