/**
 * Plugins: `{ name, core, optionsSchema, apply }` made with definePlugin(). Options are parsed
 * when the plugin is created and the core range is checked when a pipeline applies it, so a
 * bad plugin fails at load with a coded error, never mid-request.
 */
import semver from 'semver';
import { knownFieldsAt, unknownFieldsMessage } from './did-you-mean.js';
import { SwitchyardError } from './errors.js';
import type { Pipeline, Plugin, PluginDefinition } from './contract.js';
import { PLUGIN_MARKER } from './plugin-marker.js';
import { CORE_VERSION } from './version.js';

export { PLUGIN_MARKER } from './plugin-marker.js';
export type { Plugin, PluginDefinition } from './contract.js';

export type PluginFactory<Input, Options> = ((options?: Input) => Plugin<Options>) & { readonly pluginName: string; readonly definition: PluginDefinition<Options, Input> };

/**
 * Makes a plugin factory. With an `optionsSchema`, the factory takes the schema's input (a
 * field with a default is optional) and `apply` gets its output (every default filled in).
 */
export function definePlugin<Options = void, Input = Options>(definition: PluginDefinition<Options, Input>): PluginFactory<Input, Options> {
  const factory = (input?: Input): Plugin<Options> => {
    const options = parsePluginOptions(definition, input);
    return Object.freeze({
      [PLUGIN_MARKER]: true as const,
      name: definition.name,
      version: definition.version,
      core: definition.core,
      dependencies: definition.dependencies,
      options,
      apply: (pipeline: Pipeline) => definition.apply(pipeline, options),
    });
  };
  return Object.assign(factory, { pluginName: definition.name, definition });
}

export function isPlugin(value: unknown): value is Plugin {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PLUGIN_MARKER] === true;
}

function parsePluginOptions<O, I>(definition: PluginDefinition<O, I>, input: unknown): O {
  if (!definition.optionsSchema) return input as O;
  const result = definition.optionsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  // An unknown option names the closest known one; the loader reads these issues' messages.
  for (const issue of result.error.issues) if (issue.code === 'unrecognized_keys') (issue as { message: string }).message = unknownFieldsMessage(issue.keys, knownFieldsAt(definition.optionsSchema, issue.path));
  const first = result.error.issues[0];
  const field = first?.path.length ? first.path.join('.') : '(options)';
  const detail = result.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ');
  throw new SwitchyardError('plugin', `${detail} (${definition.name})`, {
    code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS',
    path: field,
    cause: result.error,
  });
}

/** Checks a plugin against this core before it is applied. */
export function checkPluginCompatibility(plugin: Plugin, applied: ReadonlySet<string>): void {
  if (plugin.core && !semver.satisfies(CORE_VERSION, plugin.core, { includePrerelease: true })) {
    throw new SwitchyardError('plugin', `${plugin.name} needs @switchyard/core ${plugin.core}, but this is ${CORE_VERSION}`, {
      code: 'SWITCHYARD_ERR_PLUGIN_VERSION_MISMATCH',
    });
  }
  for (const dep of plugin.dependencies ?? []) {
    if (!applied.has(dep)) {
      throw new SwitchyardError('plugin', `${plugin.name} needs ${dep} to be listed before it in plugins`, {
        code: 'SWITCHYARD_ERR_PLUGIN_DEPENDENCY',
      });
    }
  }
}
