/** `switchyard usage`: the ledger's totals from the usage log files, as GET /switchyard/usage reports them. */
import path from 'node:path';
import type { DayDoc, UsageAnswer, UsageRecord } from '@switchyard/plugin-quota';
import type { Command, OptionValues } from '../command.js';
import { formatError } from '../format-error.js';
import { EXIT, type CliIO } from '../io.js';
import { readTextFile } from '../read-text-file.js';
import type { ReconcileLine, Reconciliation } from '../reconcile.js';
import { renderTable } from '../table.js';

export const usageCommand: Command = {
  name: 'usage',
  summary: 'Usage and cost totals from the usage log (billed and estimated apart)',
  help: `Usage: switchyard usage --log <file> [--since <day>] [--until <day>] [--group-by <g>] [--json]
       switchyard usage --log <file> --reconcile <bill> [--vendor <name>] [--currency <code>] [--fx <code=rate,...>] [--json]

Reads the quota plugin's usage log (ledger.log: the daily files <name>.YYYY-MM-DD.jsonl next
to it) and prints the totals GET /switchyard/usage reports for the same days: requests,
failures, billed tokens and cost (the vendor's usage), and estimated tokens and cost
(attempts the vendor worked on that reported no usage: failed after the headers, or timed out
before them).

With --reconcile, compares the log with a vendor's bill, per vendor and UTC day: the ledger's
billed and estimated cost, the vendor's charge and the difference (vendor - ledger). The bill
is OpenAI's Costs API JSON, Anthropic's cost report JSON, or a CSV / JSON table with a day and
a cost column (generic: date,vendor,cost_usd; vendor console exports by their column names).

Options:
      --log <file>       the ledger.log path from the config
      --since <day>      first UTC day (YYYY-MM-DD, ISO time or epoch ms; default 29 days before --until)
      --until <day>      last UTC day, inclusive (default today)
      --group-by <g>     deployment (default), key (vendor key), model, tag, day, gatewayKey
                         (the gateway key a client called with) or team
      --reconcile <bill> a vendor's bill to compare the log with (CSV or JSON, per day)
      --vendor <name>    the endpoint or provider the bill is for (overrides what the file says)
      --currency <code>  the bill's currency when it names none (default USD)
      --fx <code=rate>   USD per unit of another currency, comma-separated: CNY=0.14,EUR=1.08
      --json             print JSON (the answer of GET /switchyard/usage, or the reconciliation)
  -h, --help             show this help`,
  options: {
    log: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    'group-by': { type: 'string' },
    reconcile: { type: 'string' },
    vendor: { type: 'string' },
    currency: { type: 'string' },
    fx: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  async run(values, io) {
    if (!values.log) {
      io.err.write('error: --log <file> is required (the ledger.log path from the config)\n');
      return EXIT.USAGE;
    }
    if (values.reconcile !== undefined) return reconcileCommand(values, io);
    // Loaded here, not at the top: every command's module loads with the CLI, serve included.
    const { addRecord, answerFrom, dayOf, emptyDay, parseUsageQuery, UsageQueryError } = await import('@switchyard/plugin-quota');
    let query;
    try {
      query = parseUsageQuery({ since: values.since as string | undefined, until: values.until as string | undefined, groupBy: values['group-by'] as string | undefined }, Date.now());
    } catch (error) {
      if (!(error instanceof UsageQueryError)) throw error;
      io.err.write(`error: ${error.message.replace(/^groupBy/, '--group-by')}\n`);
      return EXIT.USAGE;
    }
    const records = await readLog(values, io);
    if (!records) return EXIT.FAILED;
    const days = new Map<string, DayDoc>();
    for (const record of records) {
      const day = dayOf(record.at);
      addRecord(days.get(day) ?? days.set(day, emptyDay()).get(day)!, record);
    }
    const answer = answerFrom(query, days);
    io.out.write(values.json ? `${JSON.stringify(answer, null, 2)}\n` : formatAnswer(answer));
    return EXIT.OK;
  },
};

async function readLog(values: OptionValues, io: CliIO): Promise<UsageRecord[] | undefined> {
  const { readUsageLog } = await import('@switchyard/plugin-quota');
  const file = path.resolve(io.cwd, values.log as string);
  let log;
  try {
    log = await readUsageLog(file);
  } catch (error) {
    io.err.write(`error: cannot read the usage log ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return undefined;
  }
  for (const where of log.skipped) io.err.write(`warning: skipped a line that is not a usage record (${where})\n`);
  return log.records;
}

async function reconcileCommand(values: OptionValues, io: CliIO): Promise<number> {
  const [{ parseVendorBill }, { reconcile }] = await Promise.all([import('../vendor-bill.js'), import('../reconcile.js')]);
  const fx: Record<string, number> = {};
  for (const pair of String(values.fx ?? '').split(',').filter(Boolean)) {
    const [code, rate] = pair.split('=');
    const value = Number(rate);
    if (!/^[A-Za-z]{3}$/.test(code ?? '') || !(value > 0)) {
      io.err.write(`error: --fx expects CODE=RATE pairs (USD per unit, e.g. CNY=0.14), got "${pair}"\n`);
      return EXIT.USAGE;
    }
    fx[code.toUpperCase()] = value;
  }
  const billFile = path.resolve(io.cwd, values.reconcile as string);
  let bill;
  try {
    const text = await readTextFile(billFile, 'vendor bill', 'SWITCHYARD_ERR_VENDOR_BILL');
    bill = parseVendorBill(text, { file: billFile, vendor: values.vendor as string | undefined, currency: values.currency as string | undefined, fx });
  } catch (error) {
    io.err.write(formatError(error));
    return EXIT.FAILED;
  }
  if (bill.lines.length === 0) {
    io.err.write(`error: vendor bill ${billFile} has no charges\n`);
    return EXIT.FAILED;
  }
  const records = await readLog(values, io);
  if (!records) return EXIT.FAILED;
  const result = reconcile(records, bill.lines);
  io.out.write(values.json ? `${JSON.stringify({ bill: billFile, format: bill.format, ...result }, null, 2)}\n` : formatReconciliation(result, bill.format));
  return EXIT.OK;
}

function formatReconciliation(r: Reconciliation, format: string): string {
  const row = (l: ReconcileLine) => [l.vendor, l.day, usd(l.ledger.billedUsd), usd(l.ledger.estimatedUsd), usd(l.ledger.totalUsd), usd(l.vendorUsd), signed(l.differenceUsd), l.differencePercent === null ? '-' : `${l.differencePercent > 0 ? '+' : ''}${l.differencePercent.toFixed(2)} %`];
  return `reconciliation with the vendor's bill (${format}): difference = vendor - ledger\n` + renderTable(['vendor', 'day', 'ledger billed', 'ledger est.', 'ledger total', 'vendor', 'difference', 'diff %'], [...r.lines.map(row), ...r.totals.map((t) => row({ ...t, day: `total ${t.day}` }))]);
}

const signed = (n: number) => `${n > 0 ? '+' : n < 0 ? '-' : ''}${usd(Math.abs(n))}`;

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
