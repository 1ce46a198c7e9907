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
import { combineProblems, configSchema, formatPath, referenceProblems, schemaProblems, type SwitchyardConfig } from './config-schema.js';
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

/**
 * Replaces `${VAR}` / `${VAR:-default}` / `${file:path}` / `${scheme:reference}` in one string;
 * `$$` is a literal `$`. With `problems`, a variable that cannot be read is added to it (and
 * reads as empty) instead of thrown: every unset variable of a config is named in one run.
 */
export function substituteVariables(value: string, env: Env, path: string, lenient = false, baseDir = process.cwd(), external?: ExternalSecrets, problems?: SwitchyardError[]): string {
  if (problems) {
    return value.replace(VAR_RE, (match) => {
      try {
        return substituteVariables(match, env, path, lenient, baseDir, external);
      } catch (error) {
        problems.push(error as SwitchyardError);
        return '';
      }
    });
  }
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

export function substituteTree(node: unknown, env: Env, path: (string | number)[], lenient: boolean, baseDir: string, external?: ExternalSecrets, problems?: SwitchyardError[]): unknown {
  if (typeof node === 'string') return substituteVariables(node, env, formatPath(path), lenient, baseDir, external, problems);
  if (Array.isArray(node)) return node.map((item, i) => substituteTree(item, env, [...path, i], lenient, baseDir, external, problems));
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    // A disabled endpoint may reference variables that are not set.
    const disabled = path.length === 2 && path[0] === 'endpoints' && (node as { enabled?: unknown }).enabled === false;
    for (const [k, v] of Object.entries(node)) out[k] = substituteTree(v, env, [...path, k], lenient || disabled, baseDir, external, problems);
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

/** What reading a config found: the config when it is valid, and every problem otherwise. */
export interface ConfigReport {
  config?: LoadedConfig;
  /** The config after substitution (unset variables read as empty), valid or not: what later checks can still look at. */
  substituted?: Record<string, unknown>;
  problems: SwitchyardError[];
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

function valueAt(node: unknown, path: readonly PropertyKey[]): unknown {
  let at = node;
  for (const key of path) at = at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

/**
 * A number or boolean field written as a variable (`port: ${SWITCHYARD_PORT:-8080}`) gets the
 * number or boolean its text spells; returns whether any field changed.
 */
function typeSubstitutedScalars(raw: unknown, substituted: unknown, issues: readonly { code: string; path: PropertyKey[]; expected?: string }[]): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'boolean') || issue.path.length === 0) continue;
    const written = valueAt(raw, issue.path);
    const value = valueAt(substituted, issue.path);
    if (typeof written !== 'string' || !written.includes('${') || typeof value !== 'string') continue;
    const parent = valueAt(substituted, issue.path.slice(0, -1)) as Record<PropertyKey, unknown>;
    const key = issue.path.at(-1)!;
    if (issue.expected === 'number' && NUMBER_TEXT.test(value.trim())) parent[key] = Number(value.trim());
    else if (issue.expected === 'boolean' && (value === 'true' || value === 'false')) parent[key] = value === 'true';
    else continue;
    changed = true;
  }
  return changed;
}

/**
 * Reads config text (YAML or JSON) and reports every problem of every phase at once: each unset
 * variable, each schema issue (other than one an unset variable caused), each bad reference.
 * `external` holds the `${scheme:…}` secrets read for it.
 */
export function readConfigReport(text: string, env: Env = process.env, source?: string, external?: ExternalSecrets): ConfigReport {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    return { problems: [new SwitchyardError('config', `${source ?? 'config'}: invalid YAML${where}: ${e.message.split('\n')[0]}`, { code: 'SWITCHYARD_ERR_CONFIG_YAML' })] };
  }
  const raw = doc.toJS();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { problems: [new SwitchyardError('config', `${source ?? 'config'}: expected a mapping with endpoints and models`, { code: 'SWITCHYARD_ERR_CONFIG' })] };
  const problems: SwitchyardError[] = [];
  const substituted = substituteTree(raw, env, [], false, source ? nodePath.dirname(nodePath.resolve(source)) : process.cwd(), external, problems) as Record<string, unknown>;
  // A field an unset variable emptied is reported once, as the variable.
  const unsetPaths = problems.map((p) => p.path ?? '');
  const causedByUnset = (path: string | undefined) => path !== undefined && unsetPaths.some((u) => path === u || path.startsWith(`${u}.`) || path.startsWith(`${u}[`));
  let parsed = configSchema.safeParse(substituted);
  if (!parsed.success && typeSubstitutedScalars(raw, substituted, parsed.error.issues as never)) parsed = configSchema.safeParse(substituted);
  if (!parsed.success) problems.push(...schemaProblems(parsed.error).filter((p) => !causedByUnset(p.path)));
  const endpoints = Array.isArray(substituted.endpoints) ? (substituted.endpoints as { name?: unknown }[]) : [];
  const models = substituted.models && typeof substituted.models === 'object' ? (substituted.models as Record<string, unknown>) : {};
  // Without a single endpoint the schema's report says it all.
  if (endpoints.length) problems.push(...referenceProblems({ endpoints, models }));
  if (problems.length || !parsed.success) return { substituted, problems };
  const config = parsed.data as LoadedConfig;
  if (config.server) config.server.apiKeys = config.server.apiKeys.filter((k) => k.length > 0);
  for (const endpoint of config.endpoints) {
    if (endpoint.apiKeys) endpoint.apiKeys = endpoint.apiKeys.filter((k) => k.length > 0);
    if (endpoint.apiKey === '') delete endpoint.apiKey;
  }
  config.source = source;
  return { config, substituted, problems };
}

/** Parses and validates config text (YAML or JSON); one coded error lists every problem found. */
export function parseConfig(text: string, env: Env = process.env, source?: string, external?: ExternalSecrets): LoadedConfig {
  const report = readConfigReport(text, env, source, external);
  if (!report.config) throw combineProblems(report.problems);
  return report.config;
}
