/**
 * A vendor's answer is read only up to a limit, as its error answers are (error-body.ts): a
 * 200 with a 1.5 GB body, or one SSE event that never ends, must not cost the gateway that
 * much memory. Past a limit the attempt fails with a coded `server` error (502 to a client),
 * which fails over like any endpoint failure; the connection is dropped, nothing more is read.
 */
import { SwitchyardError } from './errors.js';

export interface ResponseLimits {
  /** Bytes of one non-streaming answer body. */
  maxBodyBytes: number;
  /** Characters of one SSE event (its data lines and any line still without its end). */
  maxEventChars: number;
}

export const DEFAULT_RESPONSE_LIMITS: Readonly<ResponseLimits> = Object.freeze({
  maxBodyBytes: 64 * 1024 * 1024,
  maxEventChars: 16 * 1024 * 1024,
});

export const RESPONSE_TOO_LARGE_CODE = 'SWITCHYARD_ERR_RESPONSE_TOO_LARGE';

export function responseTooLarge(what: string, limit: number, unit: 'bytes' | 'characters'): SwitchyardError {
  return new SwitchyardError('server', `the vendor's ${what} is larger than the limit of ${limit} ${unit} (responseLimits); the connection was dropped`, { code: RESPONSE_TOO_LARGE_CODE, retryable: true });
}
