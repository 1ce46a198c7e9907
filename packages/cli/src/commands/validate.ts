/** `switchyard validate`: everything `serve` checks at start, without serving. */
import type { EndpointConfig, Pipeline } from '@switchyard/core';
import { EXIT } from '../io.js';
import { buildPipeline, reportConfig } from '../load-config.js';
import path from 'node:path';
import { pluginProblems } from '@switchyard/core/config';
import { envWithFile } from '../env-file.js';
import { cliImporter } from '../importer.js';
import { formatError, formatProblems } from '../format-error.js';
import type { Command } from '../command.js';
import { SERVE_OPTIONS, SERVE_OPTIONS_HELP, SERVE_USAGE, serveArguments } from '../serve-arguments.js';

/** Each enabled endpoint's provider report: `error: endpoints[i].field: …` lines, then credential sources. */
function endpointReports(pipeline: Pipeline, endpoints: readonly EndpointConfig[]): string[] {
  const errors: string[] = [];
  const notes: string[] = [];
  endpoints.forEach((endpoint, i) => {
    if (endpoint.enabled === false) return;
    const report = pipeline.providers.get(endpoint.provider)?.describeEndpoint?.(endpoint);
    if (!report) return;
    for (const problem of report.problems) errors.push(`error: endpoints[${i}] (${endpoint.name}).${problem}`);
    if (report.credentials) notes.push(`  ${endpoint.name}: credentials from ${report.credentials}`);
  });
  return [...errors, ...notes];
}

export const validateCommand: Command = {
  name: 'validate',
  summary: 'Check a config file: YAML, variables, schema, plugins and providers',
  help: `Usage: switchyard validate ${SERVE_USAGE}

Loads the config exactly as "serve" does, with the same options (environment substitution with
the env file, schema, cross references, the binding with --host / --port applied, plugin and
provider imports with their version and option checks) and reports every problem of every
phase in one run, each with the path where it is (and the closest known name for a mistyped
option or endpoint). Exits 0 when the config is valid, 1 when it is not, 2 for a bad option.
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
      // Every phase runs whatever the one before found: one run names every problem.
      const report = await reportConfig(args.file, await envWithFile(io.env, args.envFile, io.cwd), io.cwd, { overrides: args.overrides });
      secrets = report.secrets;
      const configured = report.setup?.config ?? report.substituted;
      const problems = [...report.problems, ...(configured ? await pluginProblems(configured, cliImporter(path.dirname(path.resolve(io.cwd, args.file)))) : [])];
      if (problems.length || !report.setup) {
        await report.setup?.external.close();
        io.err.write(formatProblems(problems, secrets));
        return EXIT.FAILED;
      }
      const setup = report.setup;
      const { config } = setup;
      let reports: string[];
      try {
        const pipeline = await buildPipeline(setup);
        reports = endpointReports(pipeline, config.endpoints);
        await pipeline.close();
      } finally {
        await setup.external.close();
      }
      const reported = reports.filter((line) => line.startsWith('error: '));
      if (reported.length > 0) {
        io.err.write(reported.map((line) => `${line}\n`).join(''));
        return EXIT.FAILED;
      }
      const enabled = config.endpoints.filter((e) => e.enabled !== false).length;
      const disabled = config.endpoints.length - enabled;
      io.out.write(
        `ok: ${setup.file} is valid: ${enabled} endpoint(s)${disabled ? ` (+${disabled} disabled)` : ''}, ` +
          `${Object.keys(config.models).length} model(s) [${Object.keys(config.models).join(', ')}], ${config.plugins.length} plugin(s)\n` +
          reports.map((line) => `${line}\n`).join(''),
      );
      return EXIT.OK;
    } catch (error) {
      io.err.write(formatError(error, secrets));
      return EXIT.FAILED;
    }
  },
};
