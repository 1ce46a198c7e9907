/** Reads, validates and builds a config the way `serve` runs it; shared by every command. */
import path from 'node:path';
import { parseConfig, type FromConfigOptions, type LoadedConfig, type Pipeline } from '@switchyard/core';
import { assertSafeBinding, pipelineFromConfig, resolveServerOptions, type ServerOptions } from '@switchyard/gateway';
import { cliImporter } from './importer.js';
import { readTextFile } from './read-text-file.js';
import { formatError } from './format-error.js';
import { EXIT, type CliIO } from './io.js';
import { referencedValues } from './secrets.js';

export interface LoadedSetup {
  file: string;
  config: LoadedConfig;
  /** Values of referenced environment variables: never printed. */
  secrets: string[];
}

/** `overrides`: the command line's `--host` / `--port`, checked with the config's keys as `serve` binds. */
export async function readConfig(file: string, env: Record<string, string | undefined>, cwd: string, overrides?: Partial<Pick<ServerOptions, 'host' | 'port'>>): Promise<LoadedSetup> {
  const resolved = path.resolve(cwd, file);
  const text = await readTextFile(resolved, 'config file', 'SWITCHYARD_ERR_CONFIG_READ');
  const secrets = referencedValues(text, env, path.dirname(resolved));
  const config = parseConfig(text, env, resolved);
  assertSafeBinding(resolveServerOptions(config.server, overrides));
  return { file: resolved, config, secrets };
}

/** Imports providers and plugins, checks their versions and options, and builds the pipeline. */
export function buildPipeline(setup: LoadedSetup, options: Omit<FromConfigOptions, 'importer'> = {}): Promise<Pipeline> {
  return pipelineFromConfig(setup.config, { ...options, importer: cliImporter(path.dirname(setup.file)) });
}

/**
 * Runs `work` on the pipeline a config file describes and closes it afterwards; any failure is
 * printed without secrets and becomes exit code 1.
 */
export async function withConfiguredPipeline(file: string, io: CliIO, work: (pipeline: Pipeline, setup: LoadedSetup) => Promise<number>): Promise<number> {
  let secrets: string[] = [];
  try {
    const setup = await readConfig(file, io.env, io.cwd);
    secrets = setup.secrets;
    const pipeline = await buildPipeline(setup);
    try {
      return await work(pipeline, setup);
    } finally {
      await pipeline.close();
    }
  } catch (error) {
    io.err.write(formatError(error, secrets));
    return EXIT.FAILED;
  }
}
