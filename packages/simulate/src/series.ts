/**
 * Time series for rendering: the report's buckets merged into a fixed number of columns, so a
 * terminal line or a chart stays readable whatever the bucket count.
 */
import type { BucketReport, SimulationReport } from './report.js';

export interface Column {
  startMs: number;
  endMs: number;
  requests: number;
  succeeded: number;
  /** Undefined when no request arrived. */
  successRate: number | undefined;
  /** Share (0..1) of successful answers per endpoint. */
  share: Record<string, number>;
  /** Endpoints down at some point of the column. */
  down: Set<string>;
  /** True when every endpoint was down at some point of the column. */
  allDown: boolean;
  breakerTrips: number;
}

export function columnsOf(report: SimulationReport, width: number): Column[] {
  const buckets = report.buckets;
  const count = Math.max(1, Math.min(width, buckets.length));
  const endpoints = report.scenario.endpoints;
  const columns: Column[] = [];
  for (let c = 0; c < count; c++) {
    const from = Math.floor((c * buckets.length) / count);
    const to = Math.floor(((c + 1) * buckets.length) / count);
    const slice: BucketReport[] = buckets.slice(from, Math.max(to, from + 1));
    let requests = 0;
    let succeeded = 0;
    let breakerTrips = 0;
    const answered: Record<string, number> = {};
    const down = new Set<string>();
    for (const b of slice) {
      requests += b.requests;
      succeeded += b.succeeded;
      breakerTrips += b.breakerTrips;
      for (const [name, n] of Object.entries(b.byEndpoint)) answered[name] = (answered[name] ?? 0) + n;
      for (const name of b.endpointsDown) down.add(name);
    }
    const share: Record<string, number> = {};
    for (const name of endpoints) share[name] = succeeded > 0 ? (answered[name] ?? 0) / succeeded : 0;
    columns.push({
      startMs: slice[0]!.startMs,
      endMs: slice[slice.length - 1]!.startMs + report.scenario.bucketMs,
      requests,
      succeeded,
      successRate: requests > 0 ? succeeded / requests : undefined,
      share,
      down,
      allDown: endpoints.length > 0 && slice.some((b) => endpoints.every((e) => b.endpointsDown.includes(e))),
      breakerTrips,
    });
  }
  return columns;
}
