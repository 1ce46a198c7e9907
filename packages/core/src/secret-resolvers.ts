/**
 * Secrets from an external store, referenced in a config as `${scheme:reference}`
 * (`${vault:secret/switchyard/openai#api_key}`). A resolver package is named in the config's
 * `secrets:` section (`{ use, options }`, like a plugin); its options may use `${VAR}` and
 * `${file:…}` but no external reference. Every reference is read once per load, before the
 * config is validated, so a reload reads the store again; a resolver that can tell when a
 * value changed (a new version) offers `watch`, which a host (`switchyard serve`) turns into
 * a reload. Values never appear in errors: a failure names the reference and where it is used.
 */
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import nodePath from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { formatPath, pluginEntrySchema } from './config-schema.js';
import { isSwitchyardError, SwitchyardError } from './errors.js';
import { substituteTree, type Env } from './config.js';
import type { Importer } from './plugin-loader.js';

export const SECRET_RESOLVER_MARKER = Symbol.for('switchyard.secret-resolver');

/** One secret as the store has it: its value and, when the store versions secrets, which version. */
export interface SecretValue {
  value: string;
  version?: string;
}

/** A secret store a config reads `${scheme:reference}` from. */
export interface SecretResolver {
  /** Reads one reference; an error names the reference, never a value or a credential. */
  read(reference: string): Promise<SecretValue>;
  /**
   * Watches what was read: calls `onChange` when a reference has a new value (a new version),
   * `onError` when a check failed. Returns a function that stops watching.
   */
  watch?(read: ReadonlyMap<string, SecretValue>, onChange: (reference: string) => void, onError?: (error: SwitchyardError) => void): () => void;
  /** Stops timers (token renewal) and closes connections. */
  close?(): Promise<void>;
}

export interface SecretResolverContext {
  /** Polls and renewals run on it (a virtual clock in tests). */
  clock: Clock;
}

export interface SecretResolverDefinition<O> {
  /** The `scheme` of `${scheme:reference}`: lowercase letters, digits, `-`, `+` or `.`. */
  scheme: string;
  optionsSchema?: z.ZodType<O>;
  create(options: O, context: SecretResolverContext): SecretResolver | Promise<SecretResolver>;
}

export interface SecretResolverFactory {
  readonly [SECRET_RESOLVER_MARKER]: true;
  readonly scheme: string;
  create(options: unknown, context: SecretResolverContext): Promise<SecretResolver>;
}

const SCHEME_RE = /^[a-z][a-z0-9+.-]*$/;

/** Makes the default export of a secret-resolver package (see @switchyard/plugin-vault). */
export function defineSecretResolver<O>(definition: SecretResolverDefinition<O>): SecretResolverFactory {
  if (!SCHEME_RE.test(definition.scheme) || definition.scheme === 'file') {
    throw new SwitchyardError('plugin', `secret resolver scheme "${definition.scheme}" must be lowercase letters, digits, "-", "+" or "." (and not "file")`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID' });
  }
  return {
    [SECRET_RESOLVER_MARKER]: true,
    scheme: definition.scheme,
    async create(options, context) {
      let parsed = options as O;
      if (definition.optionsSchema) {
        const result = definition.optionsSchema.safeParse(options ?? {});
        if (!result.success) {
          const issue = result.error.issues[0]!;
          const where = issue.path.length > 0 ? `.${issue.path.map(String).join('.')}` : '';
          throw new SwitchyardError('plugin', `options${where}: ${issue.message}`, { code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: `options${where}`, cause: result.error });
        }
        parsed = result.data;
      }
      return definition.create(parsed, context);
    },
  };
}

export function isSecretResolverFactory(value: unknown): value is SecretResolverFactory {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SECRET_RESOLVER_MARKER] === true;
}

/** `${scheme:reference}` (`file` is the loader's own; `${lower_case:-default}` is a variable). */
export const EXTERNAL_SECRET_RE = /\$\{([a-z][a-z0-9+.-]*):([^}-][^}]*)\}/g;

/** The external secrets one config load read, and the resolvers that read them. */
export interface ResolvedSecrets {
  /** `scheme:reference` → value, what `parseConfig` substitutes. */
  readonly values: ReadonlyMap<string, string>;
  /** Per resolver: what it read, for `watch`. */
  readonly resolvers: readonly { scheme: string; resolver: SecretResolver; read: ReadonlyMap<string, SecretValue> }[];
  /** Closes every resolver (after a reload replaced them, or when the process ends). */
  close(): Promise<void>;
}

const NONE: ResolvedSecrets = Object.freeze({ values: new Map(), resolvers: [], close: async () => undefined });

function secretError(path: string, message: string, cause?: unknown): SwitchyardError {
  return new SwitchyardError('config', `${path}: ${message}`, { code: 'SWITCHYARD_ERR_CONFIG_SECRET', path, cause });
}

/** Every `${scheme:…}` string in the tree (outside `secrets:` and disabled endpoints), with where it is used first. */
function references(node: unknown, path: (string | number)[], out: Map<string, string>): void {
  if (typeof node === 'string') {
    for (const m of node.matchAll(EXTERNAL_SECRET_RE)) if (m[1] !== 'file' && !out.has(`${m[1]}:${m[2]}`)) out.set(`${m[1]}:${m[2]}`, formatPath(path));
    return;
  }
  if (Array.isArray(node)) return node.forEach((item, i) => references(item, [...path, i], out));
  if (node && typeof node === 'object') {
    if (path.length === 2 && path[0] === 'endpoints' && (node as { enabled?: unknown }).enabled === false) return;
    for (const [k, v] of Object.entries(node)) if (!(path.length === 0 && k === 'secrets')) references(v, [...path, k], out);
  }
}

export interface ResolveSecretsOptions {
  /** How `use:` packages are imported (the config file's folder first). */
  importer: Importer;
  clock?: Clock;
}

/**
 * Reads every external secret a config's text references through the resolvers of its
 * `secrets:` section. A config without external references reads nothing (and needs no
 * resolver); a reference whose scheme has no resolver is an error naming it.
 */
export async function resolveConfigSecrets(text: string, env: Env, source: string | undefined, options: ResolveSecretsOptions): Promise<ResolvedSecrets> {
  const doc = parseDocument(text, { uniqueKeys: true });
  // Broken YAML is reported by parseConfig, with its position.
  if (doc.errors.length > 0) return NONE;
  const raw = doc.toJS() as Record<string, unknown> | null;
  if (!raw || typeof raw !== 'object') return NONE;
  const wanted = new Map<string, string>();
  references(raw, [], wanted);
  if (raw.secrets === undefined && wanted.size === 0) return NONE;
  const nested = new Map<string, string>();
  references(raw.secrets, ['secrets'], nested);
  const [firstNested] = nested.values();
  if (firstNested) throw secretError(firstNested, 'a secret resolver\'s own options cannot use an external ${scheme:…} reference (use ${VAR} or ${file:…})');
  const baseDir = source ? nodePath.dirname(nodePath.resolve(source)) : process.cwd();
  const section = substituteTree(raw.secrets ?? [], env, ['secrets'], false, baseDir);
  const entries = (Array.isArray(section) ? section : [section]).map((entry, i) => {
    const parsed = pluginEntrySchema.safeParse(entry);
    if (!parsed.success) throw new SwitchyardError('config', `secrets[${i}]: expected a package name or { use, options }`, { code: 'SWITCHYARD_ERR_CONFIG', path: `secrets[${i}]` });
    return typeof parsed.data === 'string' ? { use: parsed.data, options: undefined } : parsed.data;
  });

  const resolvers: { scheme: string; resolver: SecretResolver; read: Map<string, SecretValue> }[] = [];
  const closeAll = () => Promise.all(resolvers.map((r) => r.resolver.close?.())).then(() => undefined);
  try {
    for (let i = 0; i < entries.length; i++) {
      const { use, options: resolverOptions } = entries[i]!;
      let mod: Record<string, unknown>;
      try {
        mod = await options.importer(use);
      } catch (cause) {
        throw new SwitchyardError('plugin', `secrets[${i}]: cannot import "${use}" (is it installed?): ${(cause as Error).message}`, { code: 'SWITCHYARD_ERR_PLUGIN_IMPORT', path: `secrets[${i}].use`, cause });
      }
      const factory = [mod.default, mod.secretResolver, ...Object.values(mod)].find(isSecretResolverFactory);
      if (!factory) throw new SwitchyardError('plugin', `secrets[${i}]: "${use}" exports no secret resolver (made with defineSecretResolver())`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID', path: `secrets[${i}].use` });
      if (resolvers.some((r) => r.scheme === factory.scheme)) throw new SwitchyardError('config', `secrets[${i}]: a second resolver for "${factory.scheme}"`, { code: 'SWITCHYARD_ERR_CONFIG', path: `secrets[${i}]` });
      let resolver: SecretResolver;
      try {
        resolver = await factory.create(resolverOptions, { clock: options.clock ?? systemClock });
      } catch (error) {
        if (isSwitchyardError(error)) throw new SwitchyardError(error.kind, `secrets[${i}].${error.message}`, { code: error.code, path: `secrets[${i}].${error.path ?? 'options'}`, cause: error });
        throw error;
      }
      resolvers.push({ scheme: factory.scheme, resolver, read: new Map() });
    }
    const values = new Map<string, string>();
    await Promise.all(
      [...wanted].map(async ([key, usedAt]) => {
        const colon = key.indexOf(':');
        const scheme = key.slice(0, colon);
        const reference = key.slice(colon + 1);
        const owner = resolvers.find((r) => r.scheme === scheme);
        if (!owner) throw secretError(usedAt, `\${${scheme}:…} needs a secret resolver for "${scheme}" (list its package under secrets:)`);
        try {
          const secret = await owner.resolver.read(reference);
          owner.read.set(reference, secret);
          values.set(key, secret.value);
        } catch (cause) {
          throw secretError(usedAt, `cannot read \${${scheme}:${reference}}: ${isSwitchyardError(cause) ? cause.message : (cause as Error).message}`, cause);
        }
      }),
    );
    return { values, resolvers, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
