/** A config file from disk: read, its external secrets resolved, substituted and validated. */
import { readFile } from 'node:fs/promises';
import nodePath from 'node:path';
import { parseConfig, type Env, type LoadedConfig } from './config.js';
import { SwitchyardError } from './errors.js';
import { importerFrom, type Importer } from './plugin-loader.js';
import { resolveConfigSecrets } from './secret-resolvers.js';

/**
 * Reads, substitutes and validates a config file. External secrets (`${vault:…}`) are read
 * through the resolvers its `secrets:` section names, imported with `importer` (default: from
 * the config's folder), and closed again: a host that watches them uses resolveConfigSecrets.
 */
export async function loadConfigFile(file: string, env: Env = process.env, options: { importer?: Importer } = {}): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new SwitchyardError('config', `cannot read config file ${file}: ${(cause as Error).message}`, { code: 'SWITCHYARD_ERR_CONFIG_READ', cause });
  }
  const secrets = await resolveConfigSecrets(text, env, file, { importer: options.importer ?? importerFrom(nodePath.dirname(nodePath.resolve(file))) });
  try {
    return parseConfig(text, env, file, secrets.values);
  } finally {
    await secrets.close();
  }
}
