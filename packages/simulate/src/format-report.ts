/** The report as terminal text: the figures, then sparklines of success rate and endpoint share. */
import { formatSimDuration } from './duration.js';
import type { SimulationReport } from './report.js';
import { columnsOf, type Column } from './series.js';

export interface FormatReportOptions {
  /** Columns of the sparklines (default 96). */
  width?: number;
  /** The success rate required while at least one endpoint was up (default 0.999). */
  target?: number;
}

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/** Failure-rate steps for the success sparkline: a linear scale would hide a 1 % dip. */
const FAILURE_STEPS = [0, 0.001, 0.01, 0.05, 0.2, 0.5, 0.999];

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number, digits = 3) => `${(n * 100).toFixed(digits)}%`;
const secs = (ms: number) => formatSimDuration(ms);

/** █ = no failure, ▇ ≤ 0.1 %, ▆ ≤ 1 %, ▅ ≤ 5 %, ▄ ≤ 20 %, ▃ ≤ 50 %, ▂ < 100 %, ▁ = all failed; blank = no requests. */
export function successGlyph(rate: number | undefined): string {
  if (rate === undefined) return ' ';
  const failure = 1 - rate;
  const step = FAILURE_STEPS.findIndex((limit) => failure <= limit + 1e-12);
  return BLOCKS[7 - (step === -1 ? 7 : step)]!;
}

/** A share 0..1 as one of eight heights; blank for none at all. */
export function shareGlyph(share: number): string {
  if (share <= 0) return ' ';
  return BLOCKS[Math.min(7, Math.floor(share * 8))]!;
}

function counts(map: Record<string, number>): string {
  const entries = Object.entries(map).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} ${int(v)}`).join(', ');
}

function axis(columns: Column[], pad: number): string {
  const total = columns[columns.length - 1]!.endMs;
  const marks = 4;
  let line = ' '.repeat(pad) + '0';
  for (let m = 1; m <= marks; m++) {
    const col = Math.round((m * columns.length) / marks) - 1;
    const label = secs((m * total) / marks);
    const at = pad + col - label.length + 1;
    if (at > line.length) line += ' '.repeat(at - line.length) + label;
  }
  return line;
}

export function formatReport(report: SimulationReport, options: FormatReportOptions = {}): string {
  const target = options.target ?? 0.999;
  const s = report.scenario;
  const up = report.whileAnyUp;
  const lines: string[] = [];
  const streamed = Math.round(s.streamShare * 100);
  lines.push(`${s.name}: ${secs(s.durationMs)} simulated in ${(report.run.wallMs / 1000).toFixed(1)} s wall (${int(report.requests)} requests, one every ${secs(s.intervalMs)}, ${streamed}% streamed, seed ${s.seed})${report.run.aborted ? '  [ABORTED]' : ''}`);
  lines.push('');
  const verdict = up.successRate >= target ? `meets ${pct(target, 1)}` : `BELOW ${pct(target, 1)}`;
  lines.push(`success                ${int(report.succeeded)} / ${int(report.requests)}  ${pct(report.successRate)}`);
  lines.push(`while any endpoint up  ${int(up.succeeded)} / ${int(up.requests)}  ${pct(up.successRate)}  (${verdict})`);
  lines.push(`while all were down    ${int(report.whileAllDown.succeeded)} / ${int(report.whileAllDown.requests)} succeeded`);
  lines.push(`unfinished ${int(report.unfinished)} · incomplete answers ${int(report.incompleteAnswers)}`);
  lines.push('');
  const l = report.latencyMs;
  lines.push(`latency (virtual)      p50 ${secs(l.p50)}  p95 ${secs(l.p95)}  p99 ${secs(l.p99)}  max ${secs(l.max)}`);
  const f = report.failureLatencyMs;
  if (report.failed > 0) lines.push(`time to a clean error  p50 ${secs(f.p50)}  p95 ${secs(f.p95)}  max ${secs(f.max)}`);
  const h = report.attempts.histogram;
  lines.push(`attempts per request   ${report.attempts.perRequest.toFixed(3)}  (${['1', '2', '3', '4+'].map((k) => `${k}: ${int(h[k] ?? 0)}`).join(', ')})`);
  lines.push(`upstream calls         ${int(report.upstream.calls)}  amplification ${report.upstream.amplification.toFixed(3)}x  (${counts(report.upstream.byEndpoint)})`);
  lines.push(`answered by            ${counts(report.answeredBy)}`);
  lines.push(`failovers ${int(report.failovers)} · retries ${int(report.retries)} · breaker trips ${int(report.breakerTrips.total)}${report.breakerTrips.total ? ` (${int(report.breakerTrips.reopens)} after a failed probe; ${counts(report.breakerTrips.byDeployment)})` : ''} · health changes ${int(report.healthChanges)}`);
  lines.push(`degraded answers       ${counts(report.degraded)}`);
  lines.push(`failures by kind       ${counts(report.failuresByKind)}`);
  lines.push(`upstream failures      ${counts(report.attemptFailuresByKind)}`);

  if (report.buckets.length > 0 && report.requests > 0) {
    const columns = columnsOf(report, options.width ?? 96);
    const names = s.endpoints;
    const pad = Math.max(10, ...names.map((n) => n.length + 2));
    const label = (text: string) => text.padEnd(pad);
    const per = secs(columns[0]!.endMs - columns[0]!.startMs);
    lines.push('');
    lines.push(`success rate, one column per ${per}  (█ no failures, ▇ ≤0.1%, ▆ ≤1%, ▅ ≤5%, ▄ ≤20%, ▃ ≤50%, ▂ <100%, ▁ none succeeded)`);
    lines.push(label('success') + columns.map((c) => successGlyph(c.successRate)).join(''));
    lines.push(label('outage') + columns.map((c) => (c.allDown ? '▲' : c.down.size > 0 ? '·' : ' ')).join('') + '   (▲ every endpoint down, · some down)');
    lines.push('');
    lines.push('endpoint share of answers');
    for (const name of names) lines.push(label(name) + columns.map((c) => shareGlyph(c.share[name] ?? 0)).join(''));
    lines.push(axis(columns, pad));
  }
  if (report.failureSamples.length > 0) {
    lines.push('');
    lines.push('first failures');
    for (const sample of report.failureSamples.slice(0, 5)) lines.push(`  at ${secs(sample.atMs)}: ${sample.kind}: ${sample.message}`);
  }
  return lines.join('\n');
}
