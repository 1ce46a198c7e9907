/** Keeps the values of the variables and secret files a config references out of anything the CLI prints. */
import path from 'node:path';
import { readSecretFile } from '@switchyard/core/config';
import { redactSecrets } from '@switchyard/core/wire';

const REFERENCE_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;
const FILE_RE = /\$\{file:([^}]+)\}/g;

export function referencedValues(configText: string, env: Record<string, string | undefined>, baseDir = process.cwd()): string[] {
  const values = new Set<string>();
  for (const match of configText.matchAll(REFERENCE_RE)) {
    const value = env[match[1]];
    if (value && value.length >= 4) values.add(value);
  }
  for (const match of configText.matchAll(FILE_RE)) {
    try {
      const value = readSecretFile(match[1], baseDir, 'secret');
      if (value.length >= 4) values.add(value);
    } catch {
      // The loader reports an unreadable file with its path.
    }
  }
  return [...values];
}

/** The secret files a config reads, as absolute paths (relative ones are under the config's folder). */
export function secretFilesOf(configText: string, baseDir: string): string[] {
  return [...new Set([...configText.matchAll(FILE_RE)].map((m) => path.resolve(baseDir, m[1].trim())))];
}

export function redact(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets);
}
