/** The `stream` field both OpenAI dialects take. */
import { SwitchyardError } from '@switchyard/core';

/** The `stream` field of a body: absent, or a boolean (a 400 naming it otherwise). */
export function wantsStream(body: unknown): boolean {
  const stream = (body as { stream?: unknown } | null)?.stream;
  if (stream === undefined || stream === null) return false;
  if (typeof stream !== 'boolean') throw new SwitchyardError('invalid-request', 'stream must be a boolean', { path: 'stream', status: 400 });
  return stream;
}
