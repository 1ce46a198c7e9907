/** `switchyard check`: probes every endpoint and prints reachability, latency, auth and models. */
import { EXIT } from '../io.js';
import { withConfiguredPipeline } from '../load-config.js';
import { CONFIG_HELP, configOption, type Command } from '../command.js';
import { modelsSummary, probeEndpoint } from '../probe-endpoints.js';
import { renderTable } from '../table.js';
import { redact } from '../secrets.js';

export const checkCommand: Command = {
  name: 'check',
  summary: 'Probe every endpoint: reachable, latency, auth ok, models',
  help: `Usage: switchyard check [--config <file>] [--timeout <ms>]

Sends each enabled endpoint its provider's cheap probe (a "list models" request, no tokens
spent) through the same transport the gateway uses (proxy and CA settings apply) and prints
one row per endpoint. Exits 0 when every enabled endpoint answered with working credentials,
1 otherwise.

Options:
${CONFIG_HELP}
  -t, --timeout <ms>    time allowed per probe (default: 5000)
  -h, --help            show this help`,
  options: { ...configOption, timeout: { type: 'string', short: 't', default: '5000' } },
  async run(values, io) {
    const timeoutMs = Number(values.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      io.err.write(`error: --timeout must be a positive number of milliseconds, got "${values.timeout}"\n`);
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
      const bad = results.filter((r) => r.reachable === 'no' || r.auth === 'failed');
      if (bad.length > 0) io.out.write(`\n${bad.length} endpoint(s) need attention: ${bad.map((r) => r.endpoint).join(', ')}\n`);
      return bad.length > 0 ? EXIT.FAILED : EXIT.OK;
    });
  },
};
