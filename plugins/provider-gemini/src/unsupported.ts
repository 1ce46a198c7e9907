/** The coded error this codec raises when a unified request cannot be expressed for Gemini. */
import { SwitchyardError } from '@switchyard/core';

export function unsupported(message: string, path: string): SwitchyardError {
  return new SwitchyardError('bad-request', `gemini: ${path}: ${message}`, { path, retryable: false, provider: 'gemini' });
}
