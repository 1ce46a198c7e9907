/** The `switchyard` command line: subcommand dispatch, --help for each, exit codes. */
import { parseArgs } from 'node:util';
import type { Command } from './command.js';
import { checkCommand } from './commands/check.js';
import { serveCommand } from './commands/serve.js';
import { validateCommand } from './commands/validate.js';
import { replayCommand } from './commands/replay.js';
import { simulateCommand } from './commands/simulate.js';
import { usageCommand } from './commands/usage.js';
import { keysCommand } from './commands/keys.js';
import { importCommand } from './commands/import.js';
import { demoCommand } from './demo-command.js';
import { EXIT, processIO, type CliIO } from './io.js';
import { cliVersion } from './package-files.js';

export const COMMANDS: readonly Command[] = [serveCommand, validateCommand, checkCommand, demoCommand, simulateCommand, replayCommand, usageCommand, keysCommand, importCommand];

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `switchyard: keeps LLM vendor calls answering when vendors fail

Usage: switchyard <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run "switchyard <command> --help" for the options of a command, "switchyard --version" for
the version.
`;
}

export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.out.write(topic ? `${topic.help}\n` : mainHelp());
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out.write(`${cliVersion()}\n`);
    return EXIT.OK;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err.write(`error: unknown command "${name}"\n\n${mainHelp()}`);
    return EXIT.USAGE;
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...rest], options: { ...command.options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: command.positionals === true }));
  } catch (error) {
    io.err.write(`error: ${(error as Error).message}\n\n${command.help}\n`);
    return EXIT.USAGE;
  }
  if (values.help) {
    io.out.write(`${command.help}\n`);
    return EXIT.OK;
  }
  return command.run(values, io, positionals);
}
