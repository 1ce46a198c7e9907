/**
 * The simulation report and the collector that builds it from request results and pipeline
 * events. Times are milliseconds from the scenario's start (virtual time).
 */

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export interface BucketReport {
  /** Start of the bucket, from the scenario's start. */
  startMs: number;
  requests: number;
  succeeded: number;
  /** Undefined when no request arrived in the bucket. */
  successRate: number | undefined;
  /** Requests that arrived while at least one endpoint serving them was up, and how many of those succeeded. */
  anyUpRequests: number;
  anyUpSucceeded: number;
  /** Successful answers per endpoint. */
  byEndpoint: Record<string, number>;
  /** Endpoints under a scheduled total outage at some arrival in this bucket. */
  endpointsDown: string[];
  /** Upstream attempts of the requests that arrived in this bucket. */
  attempts: number;
  breakerTrips: number;
}

export interface BreakerTrip {
  atMs: number;
  deployment: string;
  /** How long the breaker stays open (until its half-open probe). */
  openForMs: number;
  reason: string;
}

export interface SimulationReport {
  scenario: { name: string; seed: number; durationMs: number; bucketMs: number; intervalMs: number; streamShare: number; endpoints: string[] };
  requests: number;
  succeeded: number;
  failed: number;
  /** Requests still running when the simulation stopped (should be 0). */
  unfinished: number;
  successRate: number;
  /** The acceptance figure: requests that arrived while at least one endpoint able to serve them was up. */
  whileAnyUp: { requests: number; succeeded: number; successRate: number };
  /** Requests that arrived while every endpoint able to serve them was down. */
  whileAllDown: { requests: number; succeeded: number };
  /** Final error kinds the caller saw. */
  failuresByKind: Record<string, number>;
  /** Error kinds of every failed upstream attempt. */
  attemptFailuresByKind: Record<string, number>;
  /** A few failures the caller saw, to start an investigation from. */
  failureSamples: { atMs: number; kind: string; message: string }[];
  /** Successful answers per endpoint over the whole run. */
  answeredBy: Record<string, number>;
  failovers: number;
  retries: number;
  /** Every opening of a breaker; `reopens` are the ones after a failed half-open probe, `closes` the recoveries. */
  breakerTrips: { total: number; reopens: number; closes: number; byDeployment: Record<string, number>; timeline: BreakerTrip[] };
  healthChanges: number;
  /** Successful requests, arrival to the last byte (virtual ms). */
  latencyMs: LatencySummary;
  /** Failed requests, arrival to the error. */
  failureLatencyMs: LatencySummary;
  attempts: { total: number; perRequest: number; histogram: Record<string, number> };
  /** The vendors' view: calls that reached an endpoint, and attempts per request. */
  upstream: { calls: number; amplification: number; byEndpoint: Record<string, number>; byFault: Record<string, number> };
  /** Degraded answers per degrade level. */
  degraded: Record<string, number>;
  /** Successes whose text was not the whole healthy answer (should be 0: never a truncated success). */
  incompleteAnswers: number;
  buckets: BucketReport[];
  run: { wallMs: number; timersFired: number; requestsPerWallSecond: number; aborted: boolean };
}

export interface RequestResult {
  arrivedAtMs: number;
  anyUp: boolean;
  ok: boolean;
  latencyMs: number;
  attempts: number;
  endpoint?: string;
  degraded?: string;
  complete?: boolean;
  errorKind?: string;
  errorMessage?: string;
}

const MAX_SAMPLES = 12;
/** The circuit-breaker plugin's reason when a half-open probe failed. */
const REOPEN = /half-open/;

export function summarize(values: Float64Array | number[]): LatencySummary {
  if (values.length === 0) return { p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1]!, mean: sum / sorted.length };
}

const bump = (map: Record<string, number>, key: string, by = 1) => {
  map[key] = (map[key] ?? 0) + by;
};

export class ReportCollector {
  private readonly buckets: BucketReport[];
  private requests = 0;
  private succeeded = 0;
  private anyUp = { requests: 0, succeeded: 0 };
  private allDown = { requests: 0, succeeded: 0 };
  private readonly failuresByKind: Record<string, number> = {};
  private readonly attemptFailuresByKind: Record<string, number> = {};
  private readonly failureSamples: SimulationReport['failureSamples'] = [];
  private readonly answeredBy: Record<string, number> = {};
  private readonly degraded: Record<string, number> = {};
  private readonly okLatencies: number[] = [];
  private readonly failLatencies: number[] = [];
  private readonly attemptHistogram: Record<string, number> = {};
  private attempts = 0;
  private incomplete = 0;
  failovers = 0;
  retries = 0;
  healthChanges = 0;
  breakerCloses = 0;
  private readonly trips: BreakerTrip[] = [];
  private readonly upstreamByEndpoint: Record<string, number> = {};
  private readonly upstreamByFault: Record<string, number> = {};
  private upstreamCalls = 0;

  constructor(
    private readonly scenario: SimulationReport['scenario'],
  ) {
    const count = Math.max(1, Math.ceil(scenario.durationMs / scenario.bucketMs));
    this.buckets = Array.from({ length: count }, (_, i) => ({
      startMs: i * scenario.bucketMs,
      requests: 0,
      succeeded: 0,
      successRate: undefined,
      anyUpRequests: 0,
      anyUpSucceeded: 0,
      byEndpoint: {},
      endpointsDown: [],
      attempts: 0,
      breakerTrips: 0,
    }));
  }

  private bucketAt(ms: number): BucketReport {
    return this.buckets[Math.min(this.buckets.length - 1, Math.max(0, Math.floor(ms / this.scenario.bucketMs)))]!;
  }

  /** Notes which endpoints were down when a request arrived. */
  noteArrival(atMs: number, down: readonly string[]): void {
    if (down.length === 0) return;
    const bucket = this.bucketAt(atMs);
    for (const name of down) if (!bucket.endpointsDown.includes(name)) bucket.endpointsDown.push(name);
  }

  addRequest(r: RequestResult): void {
    this.requests++;
    const bucket = this.bucketAt(r.arrivedAtMs);
    bucket.requests++;
    bucket.attempts += r.attempts;
    this.attempts += r.attempts;
    bump(this.attemptHistogram, r.attempts >= 4 ? '4+' : String(r.attempts));
    const group = r.anyUp ? this.anyUp : this.allDown;
    group.requests++;
    if (r.anyUp) bucket.anyUpRequests++;
    if (r.ok) {
      this.succeeded++;
      group.succeeded++;
      bucket.succeeded++;
      if (r.anyUp) bucket.anyUpSucceeded++;
      this.okLatencies.push(r.latencyMs);
      if (r.endpoint) {
        bump(this.answeredBy, r.endpoint);
        bump(bucket.byEndpoint, r.endpoint);
      }
      if (r.degraded) bump(this.degraded, r.degraded);
      if (r.complete === false) this.incomplete++;
    } else {
      this.failLatencies.push(r.latencyMs);
      const kind = r.errorKind ?? 'unknown';
      bump(this.failuresByKind, kind);
      if (this.failureSamples.length < MAX_SAMPLES) this.failureSamples.push({ atMs: r.arrivedAtMs, kind, message: (r.errorMessage ?? '').slice(0, 300) });
    }
  }

  addAttemptFailure(kind: string): void {
    bump(this.attemptFailuresByKind, kind);
  }

  addUpstreamCall(endpoint: string, fault: string): void {
    this.upstreamCalls++;
    bump(this.upstreamByEndpoint, endpoint);
    bump(this.upstreamByFault, fault);
  }

  addBreakerTrip(trip: BreakerTrip): void {
    this.trips.push(trip);
    this.bucketAt(trip.atMs).breakerTrips++;
  }

  get counts(): { requests: number; succeeded: number } {
    return { requests: this.requests, succeeded: this.succeeded };
  }

  finish(run: SimulationReport['run'], unfinished: number): SimulationReport {
    for (const b of this.buckets) b.successRate = b.requests > 0 ? b.succeeded / b.requests : undefined;
    const byDeployment: Record<string, number> = {};
    for (const t of this.trips) bump(byDeployment, t.deployment);
    const requests = this.requests;
    return {
      scenario: this.scenario,
      requests,
      succeeded: this.succeeded,
      failed: requests - this.succeeded,
      unfinished,
      successRate: requests > 0 ? this.succeeded / requests : 1,
      whileAnyUp: { ...this.anyUp, successRate: this.anyUp.requests > 0 ? this.anyUp.succeeded / this.anyUp.requests : 1 },
      whileAllDown: { ...this.allDown },
      failuresByKind: this.failuresByKind,
      attemptFailuresByKind: this.attemptFailuresByKind,
      failureSamples: this.failureSamples,
      answeredBy: this.answeredBy,
      failovers: this.failovers,
      retries: this.retries,
      breakerTrips: { total: this.trips.length, reopens: this.trips.filter((t) => REOPEN.test(t.reason)).length, closes: this.breakerCloses, byDeployment, timeline: this.trips },
      healthChanges: this.healthChanges,
      latencyMs: summarize(this.okLatencies),
      failureLatencyMs: summarize(this.failLatencies),
      attempts: { total: this.attempts, perRequest: requests > 0 ? this.attempts / requests : 0, histogram: this.attemptHistogram },
      upstream: { calls: this.upstreamCalls, amplification: requests > 0 ? this.upstreamCalls / requests : 0, byEndpoint: this.upstreamByEndpoint, byFault: this.upstreamByFault },
      degraded: this.degraded,
      incompleteAnswers: this.incomplete,
      buckets: this.buckets,
      run,
    };
  }
}
