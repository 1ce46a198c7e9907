/**
 * The command line of a served config, shared by `serve` and `validate`: one option table, one
 * help text and one parser, so `validate` accepts exactly what `serve` accepts and loads the
 * config the same way (env file, host and port overrides included).
 */
import type { Clock } from '@switchyard/core';
import type { ServerOptions } from '@switchyard/gateway';
import { CONFIG_HELP, configOption, type OptionSpec, type OptionValues } from './command.js';
import { envWithFile } from './env-file.js';
import type { CliIO } from './io.js';
import { readConfig, type LoadedSetup } from './load-config.js';

export const SERVE_OPTIONS: OptionSpec = {
  ...configOption,
  'env-file': { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'no-watch': { type: 'boolean', default: false },
};

export const SERVE_USAGE = '[--config <file>] [--env-file <file>] [--host <host>] [--port <port>] [--no-watch]';

export const SERVE_OPTIONS_HELP = `${CONFIG_HELP}
      --env-file <file> KEY=VALUE lines for \${VAR} references (variables already set win)
      --host <host>     listen address (overrides server.host)
      --port <port>     listen port (overrides server.port; 0 picks a free one)
      --no-watch        do not reload when the config file changes`;

export interface ServeArguments {
  file: string;
  /** `--env-file`: variables for the config, read again on every reload. */
  envFile?: string;
  /** Command-line overrides of the config's server section. */
  overrides: Partial<Pick<ServerOptions, 'host' | 'port'>>;
  watch: boolean;
}

/** The parsed command line, or the usage problem to print (exit status 2). */
export function serveArguments(values: OptionValues): ServeArguments | { problem: string } {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) return { problem: `--port must be a number from 0 to 65535, got "${values.port}"` };
  return { file: values.config as string, envFile: values['env-file'] as string | undefined, overrides: { host: values.host as string | undefined, port }, watch: !values['no-watch'] };
}

/** Reads the config with the env file's variables and checks the binding with the overrides applied. */
export async function readServedConfig(args: Pick<ServeArguments, 'file' | 'envFile' | 'overrides'>, io: CliIO, file = args.file, clock?: Clock): Promise<LoadedSetup> {
  return readConfig(file, await envWithFile(io.env, args.envFile, io.cwd), io.cwd, { overrides: args.overrides, clock });
}
