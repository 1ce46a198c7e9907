/** Reads a file the CLI was pointed at; a failure is a config error naming the file and why. */
import { readFile } from 'node:fs/promises';
import { SwitchyardError, type SwitchyardErrorCode } from '@switchyard/core';

export async function readTextFile(file: string, what: string, code: SwitchyardErrorCode): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new SwitchyardError('config', `cannot read ${what} ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { code, cause });
  }
}
