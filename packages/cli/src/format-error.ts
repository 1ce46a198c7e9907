/** Readable, secret-free error output: the message (one line per bad path) and its code. */
import { isSwitchyardError } from '@switchyard/core';
import { redact } from './secrets.js';

export function formatError(error: unknown, secrets: readonly string[] = []): string {
  if (!isSwitchyardError(error)) return redact(`error: ${error instanceof Error ? error.message : String(error)}\n`, secrets);
  const lines = error.message.split('\n');
  const body = lines.length === 1 ? `error: ${lines[0]}\n` : `error: invalid configuration\n${lines.map((l) => `  ${l}\n`).join('')}`;
  return redact(`${body}  (${error.code})\n`, secrets);
}
