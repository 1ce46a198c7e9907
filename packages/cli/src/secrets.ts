/** Keeps the values of the variables and secret files a config references out of anything the CLI prints. */
import path from 'node:path';
import { readSecretFile } from '@switchyard/core/config';
import { redactSecrets, secretRandomPart } from '@switchyard/core/wire';

const REFERENCE_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;
const FILE_RE = /\$\{file:([^}]+)\}/g;

/** Well-known vendor key shapes: a credential in whatever variable or field it was put. */
const KEY_SHAPE = /^(sk-|sk_|AIza|xox[abp]-|gh[pousr]_|glpat-)/;
/** A variable whose name says it holds a credential. */
const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH/i;
/** A config field whose values are credentials (`apiKey`, `apiKeys`, `adminKeys`, `headers`, `password`…). */
const CREDENTIAL_FIELD = /^(api_?keys?|admin_?keys|keys|headers|password|passwd|secret|token|access_?token|auth_?token|authorization|bearer)$/i;
/** A field whose object maps names to values that are all credentials (a request's headers). */
const HEADER_MAP = /^headers$/i;
/** A lower-case word between separators: names (`gpt-4o-mini`, `eu-west-1`) have them, random keys do not. */
const WORD_SEGMENT = /(^|[-_.])[a-z]{4,}([-_.]|$)/;

/**
 * A value that reads as random (a key whatever its variable is called): a random part of 16
 * or more characters mixing letters and digits, without words, spaces, slashes or a scheme.
 */
export function looksRandom(value: string): boolean {
  if (/[\s/:@]/.test(value)) return false;
  const random = secretRandomPart(value);
  return random.length >= 16 && /[0-9]/.test(random) && /[A-Za-z]/.test(random) && !WORD_SEGMENT.test(random);
}

/** The password of a URL's user info (`redis://:pw@host`), the one credential a URL holds. */
function urlPassword(value: string): string | undefined {
  if (!value.includes('://') || !value.includes('@')) return undefined;
  try {
    const password = decodeURIComponent(new URL(value).password);
    return password.length >= 4 ? password : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The credential a referenced variable holds, if any: its whole value when its name or its
 * shape says it is one, the password of a URL's user info; never a URL, host, port or name
 * (masking their fragments would mangle every line that mentions them).
 */
export function credentialOf(name: string, value: string): string | undefined {
  if (value.length < 4) return undefined;
  const password = urlPassword(value);
  if (password !== undefined) return password;
  if (value.includes('://')) return undefined;
  return CREDENTIAL_NAME.test(name) || KEY_SHAPE.test(value) || looksRandom(value) ? value : undefined;
}

/**
 * The values in a parsed config's credential fields (keys, headers, passwords), wherever they
 * sit: a credential field's strings and the items of its list. An object under one is a record
 * of its own (plugin-tenants' `keys: [{ id, name, team, secret }]`): only its own credential
 * fields count (its `secret`), or every value of a header map. Counting a key's id, name and team
 * masked those words in every log line (`team: search` took every "search" out of the logs).
 */
export function credentialFieldValues(config: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, credential: boolean, headerMap: boolean, depth: number): void => {
    if (depth > 12) return;
    if (typeof value === 'string') {
      if (credential && value.length >= 4) out.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, credential, false, depth + 1);
    } else if (value && typeof value === 'object') {
      for (const [key, field] of Object.entries(value)) walk(field, (credential && headerMap) || CREDENTIAL_FIELD.test(key), HEADER_MAP.test(key), depth + 1);
    }
  };
  walk(config, false, false, 0);
  return out;
}

/** The credentials among the values a config references: credential variables and every secret file. */
export function referencedValues(configText: string, env: Record<string, string | undefined>, baseDir = process.cwd()): string[] {
  const values = new Set<string>();
  for (const match of configText.matchAll(REFERENCE_RE)) {
    const value = env[match[1]];
    const credential = value && credentialOf(match[1], value);
    if (credential) values.add(credential);
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
