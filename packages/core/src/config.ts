/**
 * The YAML config loader: `${VAR}` and `${VAR:-default}` substitution, zod validation with
 * errors that name the path, cross-reference checks. Secrets are substituted into the config
 * object only; no error message ever contains a substituted value.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { SwitchyardError } from './errors.js';
import { checkReferences, configError, configSchema, formatPath, type SwitchyardConfig } from './config-schema.js';
import type { EndpointConfig, ModelsConfig } from './types.js';

export type Env = Record<string, string | undefined>;

const VAR_RE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Replaces `${VAR}` / `${VAR:-default}` in one string; `$$` is a literal `$`. */
export function substituteVariables(value: string, env: Env, path: string, lenient = false): string {
  return value.replace(VAR_RE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$$') return '$';
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

function substituteTree(node: unknown, env: Env, path: (string | number)[], lenient: boolean): unknown {
  if (typeof node === 'string') return substituteVariables(node, env, formatPath(path), lenient);
  if (Array.isArray(node)) return node.map((item, i) => substituteTree(item, env, [...path, i], lenient));
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    // A disabled endpoint may reference variables that are not set.
    const disabled = path.length === 2 && path[0] === 'endpoints' && (node as { enabled?: unknown }).enabled === false;
    for (const [k, v] of Object.entries(node)) out[k] = substituteTree(v, env, [...path, k], lenient || disabled);
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

/** Parses and validates config text (YAML or JSON). */
export function parseConfig(text: string, env: Env = process.env, source?: string): LoadedConfig {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    throw new SwitchyardError('config', `${source ?? 'config'}: invalid YAML${where}: ${e.message.split('\n')[0]}`, { code: 'SWITCHYARD_ERR_CONFIG_YAML' });
  }
  const raw = doc.toJS();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new SwitchyardError('config', `${source ?? 'config'}: expected a mapping with endpoints and models`, { code: 'SWITCHYARD_ERR_CONFIG' });
  const substituted = substituteTree(raw, env, [], false);
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

export async function loadConfigFile(file: string, env: Env = process.env): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new SwitchyardError('config', `cannot read config file ${file}: ${(cause as Error).message}`, { code: 'SWITCHYARD_ERR_CONFIG_READ', cause });
  }
  return parseConfig(text, env, file);
}
