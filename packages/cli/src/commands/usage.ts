/** `switchyard usage`: the ledger's totals from the usage log files, as GET /switchyard/usage reports them. */
import path from 'node:path';
import type { DayDoc, UsageAnswer } from '@switchyard/plugin-quota';
import type { Command } from '../command.js';
import { EXIT } from '../io.js';
import { renderTable } from '../table.js';

export const usageCommand: Command = {
  name: 'usage',
  summary: 'Usage and cost totals from the usage log (billed and estimated apart)',
  help: `Usage: switchyard usage --log <file> [--since <day>] [--until <day>] [--group-by <g>] [--json]

Reads the quota plugin's usage log (ledger.log: the daily files <name>.YYYY-MM-DD.jsonl next
to it) and prints the totals GET /switchyard/usage reports for the same days: requests,
failures, billed tokens and cost (the vendor's usage), and estimated tokens and cost
(attempts that reached the vendor, then failed without reporting usage).

Options:
      --log <file>       the ledger.log path from the config
      --since <day>      first UTC day (YYYY-MM-DD, ISO time or epoch ms; default 29 days before --until)
      --until <day>      last UTC day, inclusive (default today)
      --group-by <g>     deployment (default), key (vendor key), model, tag, day, gatewayKey
                         (the gateway key a client called with) or team
      --json             print the JSON answer of GET /switchyard/usage
  -h, --help             show this help`,
  options: { log: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, 'group-by': { type: 'string' }, json: { type: 'boolean', default: false } },
  async run(values, io) {
    if (!values.log) {
      io.err.write('error: --log <file> is required (the ledger.log path from the config)\n');
      return EXIT.USAGE;
    }
    // Loaded here, not at the top: every command's module loads with the CLI, serve included.
    const { addRecord, answerFrom, dayOf, emptyDay, parseUsageQuery, readUsageLog, UsageQueryError } = await import('@switchyard/plugin-quota');
    let query;
    try {
      query = parseUsageQuery({ since: values.since as string | undefined, until: values.until as string | undefined, groupBy: values['group-by'] as string | undefined }, Date.now());
    } catch (error) {
      if (!(error instanceof UsageQueryError)) throw error;
      io.err.write(`error: ${error.message.replace(/^groupBy/, '--group-by')}\n`);
      return EXIT.USAGE;
    }
    const file = path.resolve(io.cwd, values.log as string);
    let log;
    try {
      log = await readUsageLog(file);
    } catch (error) {
      io.err.write(`error: cannot read the usage log ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
      return EXIT.FAILED;
    }
    for (const where of log.skipped) io.err.write(`warning: skipped a line that is not a usage record (${where})\n`);
    const days = new Map<string, DayDoc>();
    for (const record of log.records) {
      const day = dayOf(record.at);
      addRecord(days.get(day) ?? days.set(day, emptyDay()).get(day)!, record);
    }
    const answer = answerFrom(query, days);
    io.out.write(values.json ? `${JSON.stringify(answer, null, 2)}\n` : formatAnswer(answer));
    return EXIT.OK;
  },
};

const usd = (n: number) => `$${n.toFixed(6)}`;

function formatAnswer(a: UsageAnswer): string {
  const rows = [...Object.entries(a.groups), ['total', a.total] as const].map(([name, l]) => [
    name,
    String(l.requests),
    String(l.failures),
    String(l.billed.inputTokens),
    String(l.billed.outputTokens),
    usd(l.billed.costUsd),
    String(l.estimated.attempts),
    String(l.estimated.inputTokens + l.estimated.outputTokens),
    usd(l.estimated.costUsd),
    usd(l.costUsd),
  ]);
  return `usage ${a.since} .. ${a.until} by ${a.groupBy}\n` + renderTable([a.groupBy, 'requests', 'failures', 'billed in', 'billed out', 'billed cost', 'est. attempts', 'est. tokens', 'est. cost', 'cost'], rows);
}
