import type { SwitchyardError } from './errors.js';
import type { Candidate } from './types.js';
import { redactSecrets } from './redact-secrets.js';

/** Stamps where an error came from and makes sure no key of the candidate leaks in its message. */
export function attributeError(error: SwitchyardError, candidate: Candidate): SwitchyardError {
  error.endpoint ??= candidate.endpoint.name;
  error.deployment ??= candidate.deploymentId;
  error.provider ??= candidate.provider;
  error.keyId ??= candidate.keyId;
  const clean = redactSecrets(error.message, [candidate.apiKey]);
  if (clean !== error.message) error.message = clean;
  return error;
}
