/**
 * The upstream transport a config describes, built in this one place: a custom CA
 * (`upstream.ca`: PEM text or a file path relative to the config file), the connect timeout
 * and the per-origin connection cap; HTTPS_PROXY / NO_PROXY come from the environment
 * (transport.ts). Whoever builds it owns it: hand it to a pipeline with `owned: true`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedConfig } from './config.js';
import { SwitchyardError } from './errors.js';
import { createUndiciTransport, type Transport } from './transport.js';

/** The folder a config's relative paths are resolved from. */
export function configDir(config: Pick<LoadedConfig, 'source'>): string {
  return config.source ? path.dirname(path.resolve(config.source)) : process.cwd();
}

export async function resolveCa(value: string, baseDir: string): Promise<string> {
  if (value.includes('-----BEGIN')) return value;
  const file = path.resolve(baseDir, value);
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new SwitchyardError('config', `upstream.ca: cannot read CA file ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { code: 'SWITCHYARD_ERR_CONFIG', path: 'upstream.ca', cause });
  }
}

export async function transportFromConfig(config: Pick<LoadedConfig, 'upstream' | 'source'>): Promise<Transport> {
  const upstream = config.upstream;
  const ca = upstream?.ca ? await resolveCa(upstream.ca, configDir(config)) : undefined;
  return createUndiciTransport({ ca, connectTimeoutMs: upstream?.connectTimeoutMs, connections: upstream?.connections });
}
