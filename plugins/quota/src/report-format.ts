/** A plain-text rendering of a usage report, for logs and the CLI. */
import type { UsageReport, UsageTotals } from './ledger.js';

/** The ledger counts attempts: a request retried twice before its answer is one answer and two failed attempts. */
const COLUMNS = ['answers', 'failed attempts', 'input tok', 'output tok', 'cached tok', 'cost USD'];

function row(name: string, t: UsageTotals): string[] {
  return [name, String(t.requests), String(t.failures), String(t.inputTokens), String(t.outputTokens), String(t.cachedTokens), t.costUsd.toFixed(6)];
}

function table(title: string, rows: string[][]): string {
  const header = [title, ...COLUMNS];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function section(title: string, group: Record<string, UsageTotals>): string | undefined {
  const names = Object.keys(group).sort();
  if (names.length === 0) return undefined;
  return table(title, names.map((n) => row(n, group[n])));
}

export function formatUsageReport(report: UsageReport): string {
  const minutes = ((report.until - report.since) / 60_000).toFixed(1);
  const lines = [`Usage ${new Date(report.since).toISOString()} .. ${new Date(report.until).toISOString()} (${minutes} min)`];
  for (const [title, group] of [
    ['deployment', report.byDeployment],
    ['key', report.byKey],
    ['model', report.byModel],
    ['tag', report.byTag],
  ] as const) {
    const text = section(title, group);
    if (text) lines.push('', text);
  }
  lines.push('', table('total', [row('all', report.total)]));
  const extras = [`cache hits: ${report.cacheHits}`];
  const degraded = Object.entries(report.degraded).map(([level, n]) => `${level} ${n}`);
  if (degraded.length) extras.push(`degraded: ${degraded.join(', ')}`);
  if (report.unpriced.length) extras.push(`unpriced (cost counted as 0): ${report.unpriced.join(', ')}`);
  lines.push(extras.join('; '));
  return lines.join('\n');
}
