/**
 * Builds the pipeline a config describes, with the upstream transport it asks for: a custom CA
 * (`upstream.ca`: PEM text or a file path relative to the config file) and HTTPS_PROXY /
 * NO_PROXY from the environment (honoured by core's transport).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createPipelineFromConfig, createUndiciTransport, SwitchyardError, type FromConfigOptions, type LoadedConfig, type Pipeline } from '@switchyard/core';

export async function resolveCa(value: string, baseDir: string): Promise<string> {
  if (value.includes('-----BEGIN')) return value;
  const file = path.resolve(baseDir, value);
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new SwitchyardError('config', `upstream.ca: cannot read CA file ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { code: 'SWITCHYARD_ERR_CONFIG', path: 'upstream.ca', cause });
  }
}

export async function pipelineFromConfig(config: LoadedConfig, options: FromConfigOptions = {}): Promise<Pipeline> {
  if (options.transport || options.dispatcher) return createPipelineFromConfig(config, options);
  const baseDir = config.source ? path.dirname(path.resolve(config.source)) : process.cwd();
  const upstream = config.upstream;
  const ca = upstream?.ca ? await resolveCa(upstream.ca, baseDir) : undefined;
  const transport = createUndiciTransport({ ca, connectTimeoutMs: upstream?.connectTimeoutMs, connections: upstream?.connections });
  try {
    return await createPipelineFromConfig(config, { ...options, transport });
  } catch (error) {
    await transport.close?.();
    throw error;
  }
}
