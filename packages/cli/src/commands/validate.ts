/** `switchyard validate`: everything `serve` checks at start, without serving. */
import { EXIT } from '../io.js';
import { buildPipeline } from '../load-config.js';
import { formatError } from '../format-error.js';
import type { Command } from '../command.js';
import { readServedConfig, SERVE_OPTIONS, SERVE_OPTIONS_HELP, SERVE_USAGE, serveArguments } from '../serve-arguments.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config file: YAML, variables, schema, plugins and providers',
  help: `Usage: switchyard validate ${SERVE_USAGE}

Loads the config exactly as "serve" does, with the same options (environment substitution with
the env file, schema, cross references, the binding with --host / --port applied, plugin and
provider imports with their version and option checks) and reports every problem with the path
where it is. Exits 0 when the config is valid, 1 when it is not, 2 for a bad option.
Secrets are never printed.

Options (the same as serve's; --no-watch is accepted and changes nothing here):
${SERVE_OPTIONS_HELP}
  -h, --help            show this help`,
  options: SERVE_OPTIONS,
  async run(values, io) {
    const args = serveArguments(values);
    if ('problem' in args) {
      io.err.write(`error: ${args.problem}\n`);
      return EXIT.USAGE;
    }
    let secrets: string[] = [];
    try {
      const setup = await readServedConfig(args, io);
      secrets = setup.secrets;
      try {
        await (await buildPipeline(setup)).close();
      } finally {
        await setup.external.close();
      }
      const { config } = setup;
      const enabled = config.endpoints.filter((e) => e.enabled !== false).length;
      const disabled = config.endpoints.length - enabled;
      io.out.write(
        `ok: ${setup.file} is valid: ${enabled} endpoint(s)${disabled ? ` (+${disabled} disabled)` : ''}, ` +
          `${Object.keys(config.models).length} model(s) [${Object.keys(config.models).join(', ')}], ${config.plugins.length} plugin(s)\n`,
      );
      return EXIT.OK;
    } catch (error) {
      io.err.write(formatError(error, secrets));
      return EXIT.FAILED;
    }
  },
};
