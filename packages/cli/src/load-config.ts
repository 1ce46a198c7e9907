/** Reads, validates and builds a config the way `serve` runs it; shared by every command. */
import { SERVICE } from '@switchyard/contracts';
import path from 'node:path';
import { getService, type Clock, type Pipeline, type SwitchyardError } from '@switchyard/core';
import { combineProblems, readConfigReport, resolveConfigSecrets, type FromConfigOptions, type LoadedConfig, type ResolvedSecrets } from '@switchyard/core/config';
import { assertKeysServed, assertSafeBinding, pipelineFromConfig, resolveServerOptions, type ServerOptions } from '@switchyard/gateway';
import { cliImporter } from './importer.js';
import { readTextFile } from './read-text-file.js';
import { formatError } from './format-error.js';
import { EXIT, type CliIO } from './io.js';
import { credentialFieldValues, referencedValues, secretFilesOf } from './secrets.js';

export interface LoadedSetup {
  file: string;
  config: LoadedConfig;
  /** Credentials the config references (key variables and fields, secret files, external secrets): never printed. */
  secrets: string[];
  /** The `${file:…}` secret files the config reads (absolute paths): serve watches them. */
  secretFiles: string[];
  /** The `${vault:…}`-style secrets read and their resolvers (watched by serve); close when done. */
  external: ResolvedSecrets;
}

export interface ReadConfigOptions {
  /** The command line's `--host` / `--port`, checked with the config's keys as `serve` binds. */
  overrides?: Partial<Pick<ServerOptions, 'host' | 'port'>>;
  /** The clock external secret resolvers poll on. */
  clock?: Clock;
}

export async function readConfig(file: string, env: Record<string, string | undefined>, cwd: string, options: ReadConfigOptions = {}): Promise<LoadedSetup> {
  const report = await reportConfig(file, env, cwd, options);
  if (report.setup) return report.setup;
  throw combineProblems(report.problems);
}

/** What reading a config found: the setup when it is valid, and otherwise every problem of every phase. */
export interface ConfigFileReport {
  setup?: LoadedSetup;
  problems: SwitchyardError[];
  /** The credentials read, to mask the problems with. */
  secrets: string[];
  /** The config after substitution (valid or not): `validate` checks its plugins too. */
  substituted?: Record<string, unknown>;
}

export async function reportConfig(file: string, env: Record<string, string | undefined>, cwd: string, options: ReadConfigOptions = {}): Promise<ConfigFileReport> {
  const resolved = path.resolve(cwd, file);
  const text = await readTextFile(resolved, 'config file', 'SWITCHYARD_ERR_CONFIG_READ');
  const dir = path.dirname(resolved);
  const secrets = referencedValues(text, env, dir);
  const external = await resolveConfigSecrets(text, env, resolved, { importer: cliImporter(dir), clock: options.clock });
  for (const value of external.values.values()) if (value.length >= 4) secrets.push(value);
  const { config, substituted, problems } = readConfigReport(text, env, resolved, external.values);
  // A variable in a key field is a credential whatever its name.
  for (const value of credentialFieldValues(config ?? substituted)) if (!secrets.includes(value)) secrets.push(value);
  if (config) {
    try {
      assertSafeBinding(resolveServerOptions(config.server, options.overrides));
    } catch (error) {
      problems.push(error as SwitchyardError);
    }
  }
  if (!config || problems.length) {
    await external.close();
    return { problems, secrets, substituted };
  }
  return { setup: { file: resolved, config, secrets, secretFiles: secretFilesOf(text, dir), external }, problems, secrets, substituted };
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
    try {
      const pipeline = await buildPipeline(setup);
      try {
        return await work(pipeline, setup);
      } finally {
        await pipeline.close();
      }
    } finally {
      await setup.external.close();
    }
  } catch (error) {
    io.err.write(formatError(error, secrets));
    return EXIT.FAILED;
  }
}
