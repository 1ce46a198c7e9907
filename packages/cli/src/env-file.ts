/**
 * `serve --env-file .env`: KEY=VALUE lines (`export ` allowed, `#` comments, single or double
 * quotes, `\n` escapes inside double quotes). Variables already set in the environment win, as
 * with dotenv. The file is read again on every reload, so a rotated key applies without a restart.
 */
import { CLI_ERRORS } from './error-codes.js';
import path from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { readTextFile } from './read-text-file.js';

const LINE_RE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

export function parseEnvFile(text: string, file = '.env'): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(#|$)/.test(line)) return;
    const m = LINE_RE.exec(line);
    if (!m) throw new SwitchyardError('config', `${file}:${i + 1}: expected KEY=VALUE`, { code: CLI_ERRORS.SWITCHYARD_ERR_ENV_FILE });
    let value = m[2];
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1]] = value;
  });
  return out;
}

/** The environment with the file's variables added under the ones already set. */
export async function envWithFile(env: Record<string, string | undefined>, file: string | undefined, cwd: string): Promise<Record<string, string | undefined>> {
  if (!file) return env;
  const resolved = path.resolve(cwd, file);
  const text = await readTextFile(resolved, 'env file', 'SWITCHYARD_ERR_ENV_FILE');
  const fromFile = parseEnvFile(text, resolved);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  return merged;
}
