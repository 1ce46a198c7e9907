/**
 * The YAML config loader: `${VAR}`, `${VAR:-default}` and `${file:/run/secrets/x}` (a secret
 * read from a file, relative to the config's folder; read again on every load, so a reload picks
 * up a rotated key) substitution, zod validation with
 * errors that name the path, cross-reference checks. Secrets are substituted into the config
 * object only; no error message ever contains a substituted value.
 */
import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { parseDocument } from 'yaml';
import { SwitchyardError } from './errors.js';
import { checkReferences, configError, configSchema, formatPath, type SwitchyardConfig } from './config-schema.js';
import type { EndpointConfig, ModelsConfig } from './types.js';

export type Env = Record<string, string | undefined>;

// `$$`, `${file:path}`, `${VAR}` / `${VAR:-default}`, then `${scheme:reference}` (an external secret, secret-resolvers.ts).
const VAR_RE = /\$\$|\$\{file:([^}]+)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{([a-z][a-z0-9+.-]*):([^}-][^}]*)\}/g;

/** External secrets read for this load: `scheme:reference` → value (resolveConfigSecrets). */
export type ExternalSecrets = ReadonlyMap<string, string>;

/** The contents of a secret file without its trailing newline; the error names the file, never its contents. */
export function readSecretFile(file: string, baseDir: string, path: string): string {
  const resolved = nodePath.resolve(baseDir, file.trim());
  try {
    return readFileSync(resolved, 'utf8').replace(/\r?\n$/, '');
  } catch (cause) {
    throw new SwitchyardError('config', `${path}: cannot read secret file ${resolved} (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, { code: 'SWITCHYARD_ERR_CONFIG_SECRET_FILE', path, cause });
  }
}

/** Replaces `${VAR}` / `${VAR:-default}` / `${file:path}` / `${scheme:reference}` in one string; `$$` is a literal `$`. */
export function substituteVariables(value: string, env: Env, path: string, lenient = false, baseDir = process.cwd(), external?: ExternalSecrets): string {
  return value.replace(VAR_RE, (match, file: string | undefined, name: string | undefined, fallback: string | undefined, scheme: string | undefined, reference: string | undefined) => {
    if (match === '$$') return '$';
    if (scheme !== undefined) {
      const secret = external?.get(`${scheme}:${reference}`);
      if (secret !== undefined) return secret;
      if (lenient) return '';
      throw new SwitchyardError('config', `${path}: \${${scheme}:…} is an external secret; list a secret resolver for "${scheme}" under secrets: (and load the config with resolveConfigSecrets)`, { code: 'SWITCHYARD_ERR_CONFIG_SECRET', path });
    }
    if (file !== undefined) {
      if (!lenient) return readSecretFile(file, baseDir, path);
      try {
        return readSecretFile(file, baseDir, path);
      } catch {
        return '';
      }
    }
    const v = env[name!];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    if (v === '') return '';
    if (lenient) return '';
    throw new SwitchyardError('config', `${path}: environment variable ${name} is not set (use \${${name}:-default} for an optional value)`, {
      code: 'SWITCHYARD_ERR_CONFIG_ENV',
      path,
    });
  });
}

export function substituteTree(node: unknown, env: Env, path: (string | number)[], lenient: boolean, baseDir: string, external?: ExternalSecrets): unknown {
  if (typeof node === 'string') return substituteVariables(node, env, formatPath(path), lenient, baseDir, external);
  if (Array.isArray(node)) return node.map((item, i) => substituteTree(item, env, [...path, i], lenient, baseDir, external));
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    // A disabled endpoint may reference variables that are not set.
    const disabled = path.length === 2 && path[0] === 'endpoints' && (node as { enabled?: unknown }).enabled === false;
    for (const [k, v] of Object.entries(node)) out[k] = substituteTree(v, env, [...path, k], lenient || disabled, baseDir, external);
    return out;
  }
  return node;
}

export interface LoadedConfig extends SwitchyardConfig {
  endpoints: EndpointConfig[];
  models: ModelsConfig;
  /** Where it was read from, for reloads and relative plugin paths. */
  source?: string;
}

/** Parses and validates config text (YAML or JSON); `external` holds the `${scheme:…}` secrets read for it. */
export function parseConfig(text: string, env: Env = process.env, source?: string, external?: ExternalSecrets): LoadedConfig {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    throw new SwitchyardError('config', `${source ?? 'config'}: invalid YAML${where}: ${e.message.split('\n')[0]}`, { code: 'SWITCHYARD_ERR_CONFIG_YAML' });
  }
  const raw = doc.toJS();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new SwitchyardError('config', `${source ?? 'config'}: expected a mapping with endpoints and models`, { code: 'SWITCHYARD_ERR_CONFIG' });
  const substituted = substituteTree(raw, env, [], false, source ? nodePath.dirname(nodePath.resolve(source)) : process.cwd(), external);
  const parsed = configSchema.safeParse(substituted);
  if (!parsed.success) throw configError(parsed.error);
  const config = parsed.data as LoadedConfig;
  if (config.server) config.server.apiKeys = config.server.apiKeys.filter((k) => k.length > 0);
  for (const endpoint of config.endpoints) {
    if (endpoint.apiKeys) endpoint.apiKeys = endpoint.apiKeys.filter((k) => k.length > 0);
    if (endpoint.apiKey === '') delete endpoint.apiKey;
  }
  checkReferences(config.endpoints, config.models);
  config.source = source;
  return config;
}
