/** `switchyard serve`: the OpenAI-compatible gateway for a config file. */
import { EXIT } from '../io.js';
import { formatError } from '../format-error.js';
import type { Command } from '../command.js';
import { startServer } from '../running-server.js';
import { limitHeapGrowth } from '../serve-memory.js';
import { SERVE_OPTIONS, SERVE_OPTIONS_HELP, SERVE_USAGE, serveArguments } from '../serve-arguments.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the OpenAI-compatible gateway',
  help: `Usage: switchyard serve ${SERVE_USAGE}

Serves /v1/chat/completions, /v1/embeddings, /v1/models, /health, /ready and /metrics for
the config's logical models. Point any OpenAI SDK at http://<host>:<port>/v1 with a gateway
key from server.apiKeys.

Reload: SIGHUP or a change to the config file loads it again (the env file and every
\${file:…} secret are read again too, so rotated keys apply); requests in flight finish on
the old pipeline. A config that fails to load is rejected (logged) and the running one kept.
Shutdown: SIGTERM or SIGINT stop accepting, let requests in flight finish (up to
server.shutdownGraceMs), then exit.

Memory: serve lets V8's old generation grow 50 % past its live size between full collections
(V8's default is up to 4×): 40-70 MiB less RSS under load, for a few percent more CPU per
short request. NODE_OPTIONS=--heap-growing-percent=20 saves 15-30 MiB more but costs a coding
agent's 100 KB turn up to 2.4× the CPU; =0 restores V8's default.

Logs: one JSON line per event on stdout (pino; human-readable on a terminal): an access line
per request, a line per failed attempt and per state change. Level: LOG_LEVEL, else
server.logLevel, else info. Keys never appear in a line.

Options:
${SERVE_OPTIONS_HELP}
  -h, --help            show this help`,
  options: SERVE_OPTIONS,
  async run(values, io) {
    const args = serveArguments(values);
    if ('problem' in args) {
      io.err.write(`error: ${args.problem}\n`);
      return EXIT.USAGE;
    }
    // serve owns its process, so it may tune V8 for a long-running gateway; startServer (the API) does not.
    limitHeapGrowth(process.execArgv, io.env.NODE_OPTIONS);
    try {
      const server = await startServer({ ...args, io });
      // On a terminal a plain line says where to point clients; stdout is JSON lines otherwise.
      if ((io.out as { isTTY?: boolean }).isTTY) io.out.write(`switchyard gateway listening on ${server.address.url} (models: ${server.gateway.pipeline?.modelNames().join(', ')})\n`);
      await server.stopped;
      return EXIT.OK;
    } catch (error) {
      io.err.write(formatError(error));
      return EXIT.FAILED;
    }
  },
};
