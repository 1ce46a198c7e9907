/** The shape every subcommand has: its own options (node:util parseArgs), help text and run(). */
import type { ParseArgsConfig } from 'node:util';
import type { CliIO } from './io.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface Command {
  name: string;
  summary: string;
  /** Full help: usage line, description, options. */
  help: string;
  options: OptionSpec;
  /** The command takes words after its name (`switchyard keys show <id>`). */
  positionals?: boolean;
  /** Resolves with the exit code. */
  run(values: OptionValues, io: CliIO, positionals: readonly string[]): Promise<number>;
}

export const configOption: OptionSpec = {
  config: { type: 'string', short: 'c', default: 'switchyard.yaml' },
};

export const CONFIG_HELP = '  -c, --config <file>   config file (default: ./switchyard.yaml)';
