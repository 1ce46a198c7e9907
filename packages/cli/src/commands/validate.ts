/** `switchyard validate`: everything `serve` checks at start, without serving. */
import { EXIT } from '../io.js';
import { buildPipeline, readConfig } from '../load-config.js';
import { formatError } from '../format-error.js';
import { CONFIG_HELP, configOption, type Command } from '../command.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config file: YAML, variables, schema, plugins and providers',
  help: `Usage: switchyard validate [--config <file>]

Loads the config exactly as "serve" does (environment substitution, schema, cross references,
plugin and provider imports with their version and option checks) and reports every problem
with the path where it is. Exits 0 when the config is valid, 1 when it is not.
Secrets are never printed.

Options:
${CONFIG_HELP}
  -h, --help            show this help`,
  options: configOption,
  async run(values, io) {
    let secrets: string[] = [];
    try {
      const setup = await readConfig(values.config as string, io.env, io.cwd);
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
