/**
 * Turns a loaded config into a pipeline: imports the providers its endpoints name and the
 * plugins it lists (`use:` + `options`), checks their markers and core ranges, parses options.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SwitchyardError, isSwitchyardError } from './errors.js';
import { isPlugin, type Plugin } from './plugin.js';
import { isProvider, type ProviderV1 } from './provider.js';
import { createPipeline, type Pipeline, type PipelineOptions } from './pipeline.js';
import type { LoadedConfig } from './config.js';
import type { Transport } from './transport.js';
import { configDir, transportFromConfig } from './transport-from-config.js';
import type { StateStore } from './state-store.js';
import type { DurableRecordStore } from './durable-records.js';

/** First-party provider ids and the packages that implement them. */
export const FIRST_PARTY_PROVIDERS: Readonly<Record<string, string>> = Object.freeze({
  openai: '@switchyard/provider-openai',
  azure: '@switchyard/provider-openai',
  'azure-foundry': '@switchyard/provider-openai',
  'openai-compatible': '@switchyard/provider-openai',
  dashscope: '@switchyard/provider-openai',
  zhipu: '@switchyard/provider-openai',
  moonshot: '@switchyard/provider-openai',
  qianfan: '@switchyard/provider-openai',
  deepseek: '@switchyard/provider-openai',
  anthropic: '@switchyard/provider-anthropic',
  'azure-foundry-anthropic': '@switchyard/provider-anthropic',
  gemini: '@switchyard/provider-gemini',
  bedrock: '@switchyard/provider-bedrock',
  vertex: '@switchyard/provider-vertex',
});

export type Importer = (specifier: string) => Promise<Record<string, unknown>>;

/** Imports a package as seen from `baseDir` (the config file's folder), then from core itself. */
export function importerFrom(baseDir: string): Importer {
  return async (specifier) => {
    try {
      const resolved = createRequire(path.join(baseDir, 'noop.js')).resolve(specifier);
      return (await import(pathToFileURL(resolved).href)) as Record<string, unknown>;
    } catch {
      return (await import(specifier)) as Record<string, unknown>;
    }
  };
}

async function importModule(importer: Importer, specifier: string, what: string, hint = ''): Promise<Record<string, unknown>> {
  try {
    return await importer(specifier);
  } catch (cause) {
    throw new SwitchyardError('plugin', `${what}: cannot import "${specifier}" (is it installed?)${hint}: ${(cause as Error).message}`, { code: 'SWITCHYARD_ERR_PLUGIN_IMPORT', cause });
  }
}

/** Providers a module exports: `providers` (array), `default`, or any exported provider object. */
export function providersOf(mod: Record<string, unknown>): ProviderV1[] {
  const found = new Set<ProviderV1>();
  const list = mod.providers;
  if (Array.isArray(list)) for (const p of list) if (isProvider(p)) found.add(p);
  for (const value of Object.values(mod)) if (isProvider(value)) found.add(value);
  return [...found];
}

/**
 * Imports the provider packages the endpoints name. A third-party endpoint names its package
 * (`provider: "@acme/provider-x"`, or `"@acme/provider-x#id"` when it exports several); the
 * endpoint is then bound to that provider's id.
 */
export async function loadProviders(config: Pick<LoadedConfig, 'endpoints'>, importer: Importer): Promise<ProviderV1[]> {
  const modules = new Map<string, ProviderV1[]>();
  const providers = new Set<ProviderV1>();
  for (let i = 0; i < config.endpoints.length; i++) {
    const endpoint = config.endpoints[i];
    if (endpoint.enabled === false) continue;
    const where = `endpoints[${i}].provider`;
    const firstParty = FIRST_PARTY_PROVIDERS[endpoint.provider];
    const [pkg, wantedId] = firstParty ? [firstParty, endpoint.provider] : endpoint.provider.split('#');
    let found = modules.get(pkg);
    if (!found) {
      const hint = firstParty ? '' : `; it is not a built-in provider id either (${Object.keys(FIRST_PARTY_PROVIDERS).join(', ')})`;
      found = providersOf(await importModule(importer, pkg, where, hint));
      if (found.length === 0) throw new SwitchyardError('plugin', `${where}: "${pkg}" exports no Switchyard provider (made with defineProvider())`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID' });
      modules.set(pkg, found);
    }
    const chosen = wantedId ? found.find((p) => p.id === wantedId) : found[0];
    if (!chosen) throw new SwitchyardError('plugin', `${where}: "${pkg}" has no provider with id "${wantedId}" (it has: ${found.map((p) => p.id).join(', ')})`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID' });
    const mistake = endpoint.baseUrl ? chosen.checkEndpoint?.(endpoint) : undefined;
    if (mistake) throw new SwitchyardError('config', `endpoints[${i}].baseUrl: ${mistake}`, { code: 'SWITCHYARD_ERR_CONFIG', path: `endpoints[${i}].baseUrl` });
    if (!firstParty) endpoint.provider = chosen.id;
    for (const p of found) providers.add(p);
  }
  return [...providers];
}

export async function loadPlugins(entries: LoadedConfig['plugins'], importer: Importer): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (let i = 0; i < entries.length; i++) plugins.push(await loadPlugin(entries[i], i, importer));
  return plugins;
}

/** Imports the plugin of `plugins[index]` and parses its options. */
async function loadPlugin(entry: LoadedConfig['plugins'][number], index: number, importer: Importer): Promise<Plugin> {
  const name = typeof entry === 'string' ? entry : entry.use;
  const options = typeof entry === 'string' ? undefined : entry.options;
  const where = `plugins[${index}]`;
  const mod = await importModule(importer, name, where);
  const candidate = mod.default ?? mod.plugin;
  let plugin: unknown;
  try {
    if (isPlugin(candidate)) plugin = candidate;
    else if (typeof candidate === 'function') plugin = (candidate as (o: unknown) => unknown)(options);
  } catch (error) {
    if (isSwitchyardError(error)) {
      const prefix = (p: string) => (p && p !== '(options)' ? `${where}.options.${p}` : `${where}.options`);
      const issues = (error.cause as { issues?: { path: PropertyKey[]; message: string }[] } | undefined)?.issues;
      const message = issues ? `${issues.map((i) => `${prefix(i.path.map(String).join('.'))}: ${i.message}`).join('; ')} (${name})` : `${prefix('')}: ${error.message}`;
      throw new SwitchyardError('plugin', message, { code: error.code, path: prefix(error.path ?? ''), cause: error });
    }
    throw error;
  }
  if (!isPlugin(plugin)) throw new SwitchyardError('plugin', `${where}: "${name}" does not export a Switchyard plugin (made with definePlugin()) as its default export`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID' });
  return plugin;
}

/**
 * Every provider and plugin problem of a config at once (`switchyard validate`): each endpoint's
 * provider and each plugin is imported and its options parsed on its own, so one bad entry does
 * not hide the next. Takes a config that may have failed the schema: entries of the wrong shape
 * are left to the schema's report.
 */
export async function pluginProblems(config: { endpoints?: unknown; plugins?: unknown }, importer: Importer): Promise<SwitchyardError[]> {
  const problems: SwitchyardError[] = [];
  const endpoints = Array.isArray(config.endpoints) ? (config.endpoints as unknown[]) : [];
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = endpoints[i] as Partial<LoadedConfig['endpoints'][number]> | null;
    if (typeof endpoint?.provider !== 'string' || !endpoint.provider || endpoint.enabled === false) continue;
    // Positions matter in the messages: the others stand in as disabled.
    const only = endpoints.map((e, j) => (j === i ? { ...endpoint } : { name: '', provider: '', enabled: false }));
    await loadProviders({ endpoints: only as LoadedConfig['endpoints'] }, importer).catch((error: unknown) => problems.push(toSwitchyardProblem(error)));
  }
  const plugins = Array.isArray(config.plugins) ? (config.plugins as unknown[]) : [];
  for (let i = 0; i < plugins.length; i++) {
    const entry = plugins[i] as LoadedConfig['plugins'][number];
    if (typeof entry !== 'string' && typeof (entry as { use?: unknown } | null)?.use !== 'string') continue;
    await loadPlugin(entry, i, importer).catch((error: unknown) => problems.push(toSwitchyardProblem(error)));
  }
  return problems;
}

function toSwitchyardProblem(error: unknown): SwitchyardError {
  return isSwitchyardError(error) ? error : new SwitchyardError('plugin', (error as Error).message ?? String(error), { code: 'SWITCHYARD_ERR_PLUGIN', cause: error });
}

function isStateStore(value: unknown): value is StateStore {
  const s = value as Partial<StateStore> | null;
  return typeof s === 'object' && s !== null && ['get', 'set', 'delete', 'increment', 'acquireLease', 'releaseLease'].every((m) => typeof (s as Record<string, unknown>)[m] === 'function');
}

/** The config's `store:` (a package whose default export makes a StateStore from its options). */
export async function loadStore(entry: { use: string; options?: unknown }, importer: Importer): Promise<StateStore> {
  const mod = await importModule(importer, entry.use, 'store.use');
  const factory = mod.default ?? mod.createStore;
  let store: unknown;
  try {
    store = typeof factory === 'function' ? await (factory as (o: unknown) => unknown)(entry.options ?? {}) : undefined;
  } catch (error) {
    if (isSwitchyardError(error)) throw new SwitchyardError('config', `store.options: ${error.message}`, { code: error.code, path: error.path ? `store.options.${error.path}` : 'store.options', cause: error });
    throw error;
  }
  if (!isStateStore(store)) throw new SwitchyardError('plugin', `store.use: "${entry.use}" does not export a StateStore factory as its default export`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID', path: 'store.use' });
  return store;
}

/** A DurableRecordStore from a package (`records.use`): its default export (or `createRecords`) called with `records.options`. */
export async function loadRecords(entry: { use: string; options?: unknown }, importer: Importer): Promise<DurableRecordStore> {
  const mod = await importModule(importer, entry.use, 'records.use');
  const factory = mod.default ?? mod.createRecords;
  let records: unknown;
  try {
    records = typeof factory === 'function' ? await (factory as (o: unknown) => unknown)(entry.options ?? {}) : undefined;
  } catch (error) {
    if (isSwitchyardError(error)) throw new SwitchyardError('config', `records.options: ${error.message}`, { code: error.code, path: error.path ? `records.options.${error.path}` : 'records.options', cause: error });
    throw error;
  }
  const shaped = records as Partial<DurableRecordStore> | undefined;
  if (!shaped || typeof shaped.open !== 'function' || typeof shaped.put !== 'function' || typeof shaped.list !== 'function') {
    throw new SwitchyardError('plugin', `records.use: "${entry.use}" does not export a DurableRecordStore factory as its default export`, { code: 'SWITCHYARD_ERR_PLUGIN_INVALID', path: 'records.use' });
  }
  return shaped as DurableRecordStore;
}

export interface FromConfigOptions extends Omit<PipelineOptions, 'endpoints' | 'models' | 'plugins' | 'providers'> {
  importer?: Importer;
  /** Plugins applied before the configured ones (tests, embedding apps). */
  extraPlugins?: PipelineOptions['plugins'];
}

/**
 * Everything `switchyard validate` checks, and the pipeline `switchyard serve` runs. The
 * transport the config describes and the store it names are the pipeline's: they close with
 * it (or right away when it cannot be built). A transport, dispatcher or store passed in stays
 * the caller's.
 */
export async function createPipelineFromConfig(config: LoadedConfig, options: FromConfigOptions = {}): Promise<Pipeline> {
  const importer = options.importer ?? importerFrom(configDir(config));
  const providers = await loadProviders(config, importer);
  const plugins = await loadPlugins(config.plugins, importer);
  // A store the config names belongs to this pipeline: it closes with it.
  const ownStore = !options.store && config.store?.use ? await loadStore(config.store as { use: string; options?: unknown }, importer) : undefined;
  let ownTransport: Transport | undefined;
  let pipeline: Pipeline | undefined;
  try {
    ownTransport = options.transport || options.dispatcher ? undefined : await transportFromConfig(config);
    pipeline = createPipeline({
      ...options,
      store: ownStore ? { use: ownStore, owned: true } : options.store,
      transport: ownTransport ? { use: ownTransport, owned: true } : options.transport,
      deadlineMs: options.deadlineMs ?? config.deadlineMs,
      idempotency: options.idempotency ?? config.idempotency,
      responseLimits: options.responseLimits ?? config.upstream?.responseLimits,
      continuation: options.continuation ?? config.continuation,
      endpoints: config.endpoints,
      models: config.models,
      providers,
      plugins: [...(options.extraPlugins ?? []), ...plugins],
    });
    await pipeline.ready;
    return pipeline;
  } catch (error) {
    if (pipeline) await pipeline.close();
    else await Promise.all([ownTransport?.close?.(), ownStore?.close?.()]);
    throw error;
  }
}
