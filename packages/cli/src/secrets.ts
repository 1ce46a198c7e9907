/** Keeps the values of the variables a config references out of anything the CLI prints. */
import { redactSecrets } from '@switchyard/core';

const REFERENCE_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

export function referencedValues(configText: string, env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  for (const match of configText.matchAll(REFERENCE_RE)) {
    const value = env[match[1]];
    if (value && value.length >= 4) values.add(value);
  }
  return [...values];
}

export function redact(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets);
}
