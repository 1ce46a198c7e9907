/** `switchyard replay`: re-sends the requests the degrade plugin queued when every level failed. */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { EXIT } from '../io.js';
import { withConfiguredPipeline } from '../load-config.js';
import { CONFIG_HELP, configOption, type Command } from '../command.js';

export const replayCommand: Command = {
  name: 'replay',
  summary: 'Re-send the requests queued by plugin-degrade when every level failed',
  help: `Usage: switchyard replay --queue <file> [--config <file>] [--out <file>]

Reads the JSON-lines queue that @switchyard/plugin-degrade writes (its "queueFile" option),
sends every queued request again through the pipeline the config describes, and removes the
ones that now get a real answer (a canned or stale answer does not count). Requests that fail
again stay queued with their number of tries. With --out, each answer is appended as one JSON
line {"id", "response"} so the application can deliver it.
Exits 0 when the queue is empty afterwards, 1 otherwise.

Options:
${CONFIG_HELP}
  -q, --queue <file>    the queue file (required)
  -o, --out <file>      append the answers here as JSON lines
  -h, --help            show this help`,
  options: { ...configOption, queue: { type: 'string', short: 'q' }, out: { type: 'string', short: 'o' } },
  async run(values, io) {
    if (typeof values.queue !== 'string') {
      io.err.write(`error: --queue <file> is required\n\n${replayCommand.help}\n`);
      return EXIT.USAGE;
    }
    const queue = path.resolve(io.cwd, values.queue);
    const out = typeof values.out === 'string' ? path.resolve(io.cwd, values.out) : undefined;
    // Loaded on use, so `serve` does not hold it.
    const { replayQueue } = await import('@switchyard/plugin-degrade');
    return withConfiguredPipeline(values.config as string, io, async (pipeline) => {
      const summary = await replayQueue(queue, pipeline, {
        onResult: async ({ entry, ok, response, error }) => {
          io.out.write(`${ok ? 'ok  ' : 'fail'} ${entry.id} ${ok ? `answered by ${response?.switchyard?.endpoint}` : (error?.code ?? 'failed')}\n`);
          if (ok && out) await appendFile(out, `${JSON.stringify({ id: entry.id, response })}\n`);
        },
      });
      io.out.write(`replayed ${summary.replayed}, failed ${summary.failed}, still queued ${summary.remaining}\n`);
      return summary.remaining === 0 ? EXIT.OK : EXIT.FAILED;
    });
  },
};
