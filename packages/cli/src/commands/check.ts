/**
 * `switchyard check`: probes every endpoint (reachability, auth, models) and runs a real
 * one-token completion per deployment (latency and the error class when it fails).
 */
import { EXIT } from '../io.js';
import { withConfiguredPipeline } from '../load-config.js';
import { CONFIG_HELP, configOption, type Command } from '../command.js';
import { modelsSummary, probeEndpoint } from '../probe-endpoints.js';
import { renderTable } from '../table.js';
import { redact } from '../secrets.js';

export const checkCommand: Command = {
  name: 'check',
  summary: 'Probe every endpoint and complete one token per deployment: latency, error class',
  help: `Usage: switchyard check [--config <file>] [--timeout <ms>] [--max-tokens <n>]

Sends each enabled endpoint its provider's cheap probe (a "list models" request) and then
every deployment a real chat completion of one token (an embeddings call to a deployment with
the embeddings capability), through the same transport the gateway
uses (proxy and CA settings apply). Prints one row per endpoint (reachable, latency, auth,
models) and one per deployment (ok or failed, latency, the error class). Exits 0 when every
enabled endpoint answered with working credentials and every deployment completed, 1 otherwise.

Options:
${CONFIG_HELP}
  -t, --timeout <ms>    time allowed per probe and per completion (default: 5000)
      --max-tokens <n>  tokens each completion may use (default: 1; reasoning models need more)
  -h, --help            show this help`,
  options: { ...configOption, timeout: { type: 'string', short: 't', default: '5000' }, 'max-tokens': { type: 'string', default: '1' } },
  async run(values, io) {
    const timeoutMs = Number(values.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      io.err.write(`error: --timeout must be a positive number of milliseconds, got "${values.timeout}"\n`);
      return EXIT.USAGE;
    }
    const maxTokens = Number(values['max-tokens']);
    if (!Number.isInteger(maxTokens) || maxTokens <= 0) {
      io.err.write(`error: --max-tokens must be a positive whole number, got "${values['max-tokens']}"\n`);
      return EXIT.USAGE;
    }
    return withConfiguredPipeline(values.config as string, io, async (pipeline, { secrets }) => {
      const results = await Promise.all(pipeline.endpoints.map((e) => probeEndpoint(pipeline, e, timeoutMs)));
      const rows = results.map((r) => [
        r.endpoint,
        r.provider,
        r.reachable,
        r.latencyMs === undefined ? '-' : `${r.latencyMs} ms`,
        r.auth,
        modelsSummary(r),
        r.note ?? '',
      ]);
      io.out.write(redact(renderTable(['endpoint', 'provider', 'reachable', 'latency', 'auth', 'models', 'note'], rows), secrets));
      // Loaded here: it brings @switchyard/plugin-health, which serve must not load unless configured.
      const { completeDeployments } = await import('../complete-deployments.js');
      const completions = await completeDeployments(pipeline, { timeoutMs, maxTokens });
      const completionRows = completions.map((c) => [c.deployment, c.ok ? 'ok' : 'failed', c.latencyMs === undefined ? '-' : `${c.latencyMs} ms`, c.errorClass ?? '-', c.note ?? '']);
      io.out.write(`\n${redact(renderTable(['deployment', 'completion', 'latency', 'error class', 'note'], completionRows), secrets)}`);
      const bad = results.filter((r) => r.reachable === 'no' || r.auth === 'failed');
      const failed = completions.filter((c) => !c.ok);
      if (bad.length > 0) io.out.write(`\n${bad.length} endpoint(s) need attention: ${bad.map((r) => r.endpoint).join(', ')}\n`);
      if (failed.length > 0) io.out.write(`\n${failed.length} deployment(s) failed a one-token completion: ${failed.map((c) => c.deployment).join(', ')}\n`);
      return bad.length > 0 || failed.length > 0 ? EXIT.FAILED : EXIT.OK;
    });
  },
};
