/**
 * A small self-contained chart of a report: success rate over time (outages shaded) above the
 * endpoint share of answers (stacked). `renderReportSvg` gives the SVG alone; `renderReportHtml`
 * a page with the SVG and the key figures, for `switchyard simulate --html report.html`.
 */
import { formatSimDuration } from './duration.js';
import type { SimulationReport } from './report.js';
import { columnsOf } from './series.js';

const PALETTE = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#0ea5e9', '#84cc16', '#ec4899'];
const WIDTH = 960;
const LEFT = 64;
const RIGHT = 16;
const PLOT = WIDTH - LEFT - RIGHT;
const SUCCESS_TOP = 36;
const SUCCESS_HEIGHT = 150;
const SHARE_TOP = SUCCESS_TOP + SUCCESS_HEIGHT + 44;
const SHARE_HEIGHT = 110;
const HEIGHT = SHARE_TOP + SHARE_HEIGHT + 64;

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const fixed = (n: number) => Number(n.toFixed(1));

/**
 * Success rate on a scale that shows small dips: the failure rate's order of magnitude, from
 * 100 % (top) through 99.9 %, 99 %, 90 % down to 0 % (bottom).
 */
export function successScale(rate: number): number {
  const failure = Math.min(1, Math.max(0, 1 - rate));
  if (failure <= 0.0001) return 0;
  // log10(failure) from -4 (99.99 %) to 0 (0 %), mapped to 0..1 of the height.
  return Math.min(1, (Math.log10(failure) + 4) / 4);
}

export function renderReportSvg(report: SimulationReport): string {
  const columns = columnsOf(report, 240);
  const names = report.scenario.endpoints;
  const total = columns.length > 0 ? columns[columns.length - 1]!.endMs : report.scenario.durationMs;
  const x = (ms: number) => fixed(LEFT + (ms / Math.max(total, 1)) * PLOT);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="system-ui, sans-serif" font-size="12">`);
  out.push(`<title>${escapeXml(`${report.scenario.name}: success rate and endpoint share`)}</title>`);
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`);
  out.push(`<text x="${LEFT}" y="20" font-size="14" font-weight="600">${escapeXml(`Success rate (${(report.whileAnyUp.successRate * 100).toFixed(3)}% while any endpoint was up)`)}</text>`);

  // Outages behind the success line: light for some endpoints down, dark for all.
  for (const c of columns) {
    if (c.down.size === 0) continue;
    out.push(`<rect x="${x(c.startMs)}" y="${SUCCESS_TOP}" width="${fixed(x(c.endMs) - x(c.startMs))}" height="${SUCCESS_HEIGHT}" fill="${c.allDown ? '#fca5a5' : '#fde68a'}" opacity="0.6"><title>${escapeXml(`${formatSimDuration(c.startMs)}: down: ${[...c.down].join(', ')}`)}</title></rect>`);
  }
  for (const [rate, label] of [[1, '100%'], [0.999, '99.9%'], [0.99, '99%'], [0.9, '90%'], [0, '0%']] as const) {
    const y = fixed(SUCCESS_TOP + successScale(rate) * SUCCESS_HEIGHT);
    out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT}" y1="${y}" y2="${y}" stroke="#e5e7eb"/><text x="${LEFT - 6}" y="${y + 4}" text-anchor="end" fill="#6b7280">${label}</text>`);
  }
  const points = columns.filter((c) => c.successRate !== undefined).map((c) => `${x((c.startMs + c.endMs) / 2)},${fixed(SUCCESS_TOP + successScale(c.successRate!) * SUCCESS_HEIGHT)}`);
  if (points.length > 0) out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="#111827" stroke-width="1.5"/>`);

  out.push(`<text x="${LEFT}" y="${SHARE_TOP - 10}" font-size="14" font-weight="600">Endpoint share of answers</text>`);
  for (const c of columns) {
    let y = SHARE_TOP;
    names.forEach((name, i) => {
      const h = (c.share[name] ?? 0) * SHARE_HEIGHT;
      if (h <= 0) return;
      out.push(`<rect x="${x(c.startMs)}" y="${fixed(y)}" width="${Math.max(0.5, fixed(x(c.endMs) - x(c.startMs)))}" height="${fixed(h)}" fill="${PALETTE[i % PALETTE.length]}"/>`);
      y += h;
    });
  }
  out.push(`<rect x="${LEFT}" y="${SHARE_TOP}" width="${PLOT}" height="${SHARE_HEIGHT}" fill="none" stroke="#d1d5db"/>`);

  const axisY = SHARE_TOP + SHARE_HEIGHT + 16;
  for (let m = 0; m <= 4; m++) {
    const ms = (m * total) / 4;
    out.push(`<text x="${x(ms)}" y="${axisY}" text-anchor="${m === 0 ? 'start' : m === 4 ? 'end' : 'middle'}" fill="#6b7280">${escapeXml(ms === 0 ? '0' : formatSimDuration(ms))}</text>`);
  }
  let legendX = LEFT;
  names.forEach((name, i) => {
    out.push(`<rect x="${legendX}" y="${axisY + 18}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${legendX + 14}" y="${axisY + 27}">${escapeXml(name)}</text>`);
    legendX += 24 + name.length * 7;
  });
  out.push(`<rect x="${legendX}" y="${axisY + 18}" width="10" height="10" fill="#fde68a"/><text x="${legendX + 14}" y="${axisY + 27}">some endpoints down</text>`);
  legendX += 150;
  out.push(`<rect x="${legendX}" y="${axisY + 18}" width="10" height="10" fill="#fca5a5"/><text x="${legendX + 14}" y="${axisY + 27}">all down</text>`);
  out.push('</svg>');
  return out.join('\n');
}

export function renderReportHtml(report: SimulationReport): string {
  const s = report.scenario;
  const pct = (n: number) => `${(n * 100).toFixed(3)}%`;
  const ms = (n: number) => formatSimDuration(n);
  const rows: [string, string][] = [
    ['requests', `${report.requests} (one every ${ms(s.intervalMs)} for ${ms(s.durationMs)})`],
    ['success', `${report.succeeded} (${pct(report.successRate)})`],
    ['success while any endpoint was up', `${report.whileAnyUp.succeeded} / ${report.whileAnyUp.requests} (${pct(report.whileAnyUp.successRate)})`],
    ['latency p50 / p95 / p99', `${ms(report.latencyMs.p50)} / ${ms(report.latencyMs.p95)} / ${ms(report.latencyMs.p99)}`],
    ['attempts per request', report.attempts.perRequest.toFixed(3)],
    ['upstream amplification', `${report.upstream.amplification.toFixed(3)}x`],
    ['failovers / retries', `${report.failovers} / ${report.retries}`],
    ['breaker trips', `${report.breakerTrips.total} (${report.breakerTrips.reopens} after a failed probe)`],
    ['failures by kind', Object.entries(report.failuresByKind).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'],
    ['degraded answers', Object.entries(report.degraded).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'],
    ['wall time', `${(report.run.wallMs / 1000).toFixed(1)} s`],
  ];
  const table = rows.map(([k, v]) => `<tr><th>${escapeXml(k)}</th><td>${escapeXml(v)}</td></tr>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(`Switchyard simulation: ${s.name}`)}</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#111827}table{border-collapse:collapse;margin-top:16px}th{text-align:left;padding:4px 16px 4px 0;font-weight:500;color:#374151}td{padding:4px 0}</style>
</head><body>
<h1>${escapeXml(s.name)}</h1>
${renderReportSvg(report)}
<table>
${table}
</table>
</body></html>
`;
}
