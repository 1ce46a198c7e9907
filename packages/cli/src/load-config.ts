/** Reads, validates and builds a config the way `serve` runs it; shared by every command. */
import path from 'node:path';
import { getService, parseConfig, SERVICE, type FromConfigOptions, type LoadedConfig, type Pipeline } from '@switchyard/core';
import { assertKeysServed, assertSafeBinding, pipelineFromConfig, resolveServerOptions } from '@switchyard/gateway';
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

export async function readConfig(file: string, env: Record<string, string | undefined>, cwd: string): Promise<LoadedSetup> {
  const resolved = path.resolve(cwd, file);
  const text = await readTextFile(resolved, 'config file', 'SWITCHYARD_ERR_CONFIG_READ');
  const secrets = referencedValues(text, env, path.dirname(resolved));
  const config = parseConfig(text, env, resolved);
  assertSafeBinding(resolveServerOptions(config.server));
  return { file: resolved, config, secrets };
}

/** Imports providers and plugins, checks their versions and options, and builds the pipeline. */
export async function buildPipeline(setup: LoadedSetup, options: Omit<FromConfigOptions, 'importer'> = {}): Promise<Pipeline> {
  const pipeline = await pipelineFromConfig(setup.config, { ...options, importer: cliImporter(path.dirname(setup.file)) });
  try {
    // Admin keys manage the tenants plugin's keys: without it the config is wrong (`validate` says so).
    assertKeysServed(resolveServerOptions(setup.config.server), getService(pipeline, SERVICE.tenants) !== undefined);
  } catch (error) {
    await pipeline.close();
    throw error;
  }
  return pipeline;
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
