/**
 * What GET /status reports, kept from the pipelines' events: per model the share of requests its
 * clients got an answer for and a verdict; per deployment its breaker and health (with how old
 * the evidence behind them is), latency percentiles, error rate in requests, last error, keys;
 * budgets crossing thresholds; spend today at the ledger's prices. Per-minute buckets over the
 * last minutes feed the page's sparklines.
 */
import { SERVICE, type SpendForecast } from '@switchyard/contracts';
import { getService, listenAll, type AccountBalance, type CandidateRef, type Pipeline, type SwitchyardEvents, type Usage } from '@switchyard/core';
import { tokenCounts, toolCallsCostUsd, usageCostUsd } from '@switchyard/core/internal';

/** Minutes of history the sparklines show, and the window percentiles and error rate use. */
const HISTORY_MINUTES = 15;
const RECENT_MINUTES = 5;
/** Latency samples kept per deployment and minute (percentiles of a busy minute from a sample). */
const SAMPLES_PER_MINUTE = 200;
const MINUTE = 60_000;

export type BreakerView = 'closed' | 'half-open' | 'open';
export type KeyView = 'active' | 'parked' | 'resting' | 'paced';

interface Bucket {
  minute: number;
  attempts: number;
  attemptErrors: number;
  /** Requests that tried this deployment, and those of them it did not answer. */
  requests: number;
  errors: number;
  latencies: number[];
}

/** A model's requests in one minute, as its clients saw them. */
interface ModelBucket {
  minute: number;
  requests: number;
  errors: number;
}

interface BreakerTrack {
  state: BreakerView;
  until?: number;
  /** When the breaker last changed. */
  at: number;
}

interface DeploymentTrack {
  healthScore: number | null;
  healthy: boolean;
  /** When the health plugin last changed its verdict. */
  healthAt?: number;
  /** When an attempt last ended here. */
  lastAttemptAt?: number;
  attempts: number;
  requests: number;
  lastError?: { kind: string; code: string; status?: number; message: string; at: string };
  buckets: Bucket[];
  /** UTC day number (ms / 86 400 000) the spend is for. */
  spendDay: number;
  spendTodayUsd: number;
}

interface KeyTrack {
  state: Exclude<KeyView, 'active'>;
  until: number;
  reason: string;
}

/**
 * `serving`: answering; `failing`: it answered under half the requests that tried it lately;
 * `down`: no key left to call (each behind an open breaker, parked or resting); `idle`: no request tried it lately.
 */
export type DeploymentState = 'serving' | 'failing' | 'down' | 'idle';

export interface DeploymentStatus {
  id: string;
  endpoint: string;
  upstreamModel: string;
  state: DeploymentState;
  breaker: BreakerView;
  breakerUntil: string | null;
  healthScore: number | null;
  healthy: boolean;
  /**
   * How old the evidence behind the breaker and health badges is (the latest attempt here or
   * change of either), and whether it is stale: nothing reached the deployment in the recent
   * window, so the badges say what was true then, not now.
   */
  badgeAsOf: string | null;
  badgeAgeMs: number | null;
  stale: boolean;
  lastAttemptAt: string | null;
  p50Ms: number | null;
  p95Ms: number | null;
  /** Of the requests that tried this deployment in the recent window, the share it did not answer (retries of one request count once). */
  errorRate: number | null;
  /** The same per attempt. */
  attemptErrorRate: number | null;
  /** The health plugin's exponentially weighted error rate (null without the plugin). */
  errorRateEwma: number | null;
  /** Error patterns going on now, from the health plugin ("the same error again and again", "always timing out"). */
  patterns: { pattern: string; kind: string; code: string; status?: number; since: string }[];
  /** Since start: requests that tried this deployment, and attempts made on it. */
  requests: number;
  attempts: number;
  lastError: DeploymentTrack['lastError'] | null;
  keys: { id: string; state: KeyView; until?: string; reason?: string; breaker?: BreakerView }[];
  spendTodayUsd: number;
  /** One point per minute, oldest first: what the sparklines draw (errorRate per request). */
  series: { minute: string; requests: number; errorRate: number | null; p95Ms: number | null }[];
}

/**
 * A model as its clients see it over the recent window: `ok` (at least 99 % answered), `degraded`
 * (some failed, or a deployment is down or failing), `failing` (under half answered), `idle`.
 */
export type ModelState = 'ok' | 'degraded' | 'failing' | 'idle';

export interface ModelStatus {
  name: string;
  state: ModelState;
  /** The verdict in words, e.g. "failing: 0 of 12 requests answered in the last 5 min". */
  verdict: string;
  /** Client-visible, over the recent window: requests, those that failed, answered / requests. */
  requests: number;
  errors: number;
  successRate: number | null;
  errorRate: number | null;
  deployments: DeploymentStatus[];
}

/** An objective (plugin-degrade `slo`) as it last changed: breached with its actions on, or holding. */
export interface SloStatus {
  name: string;
  state: 'ok' | 'breached';
  scope: string;
  since: string;
  successRate: number;
  samples: number;
  target: number;
  recoverAt: number;
  actions: string[];
}

/** One gateway key's traffic today (this instance): who called, how often, what it cost. */
export interface CallerStatus {
  keyId: string;
  keyName: string | null;
  team: string | null;
  requests: number;
  errors: number;
  spendTodayUsd: number;
}

/** Gateway keys tracked on the page; more callers than this are summed under one `(other)` row. */
const MAX_CALLERS = 500;
const OTHER_CALLER = '(other)';

interface CallerTrack extends CallerStatus {
  day: number;
}

export interface StatusReport {
  models: ModelStatus[];
  budgets: { scope: string; limit: string; used: number; max: number; ratio: number; threshold: number }[];
  slos: SloStatus[];
  /** Vendor account balances per key, as plugin-balance last read them. */
  balances: { endpoint: string; keyId: string; provider: string; balances: AccountBalance[]; minBalance: number | null; low: boolean; dry: boolean; checkedAt: string; error: string | null }[];
  /** The ledger's spend projection (GET /status only, with plugin-quota's ledger; status-forecast.ts). */
  forecast?: { day: SpendForecast; month: SpendForecast } | null;
  /** Per gateway key, today (UTC), most spend first. */
  callers: CallerStatus[];
  spendTodayUsd: number;
  startedAt: string;
  now: string;
}

/** The UTC day of a time, as a number: compared on every attempt, so no date string. */
const day = (ms: number) => Math.floor(ms / 86_400_000);
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);
/** A model answering at least this share of its requests is `ok`; under half is `failing`. */
const OK_SUCCESS_RATE = 0.99;
const FAILING_SUCCESS_RATE = 0.5;

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
}

/** An attempt the deployment took part in: one ignored before it left, and not answered, is not counted against it. */
const reachedDeployment = (a: SwitchyardEvents['request:end'][0]['attempts'][number]): boolean => a.outcome !== 'ignored' || a.ok;

export class StatusBoard {
  private readonly deployments = new Map<string, DeploymentTrack>();
  private readonly modelBuckets = new Map<string, ModelBucket[]>();
  private readonly keys = new Map<string, KeyTrack>();
  /** Breakers count per candidate (`endpoint/model#key` when an endpoint has several keys). */
  private readonly breakers = new Map<string, BreakerTrack>();
  private readonly budgets = new Map<string, StatusReport['budgets'][number]>();
  private readonly slos = new Map<string, SloStatus>();
  private readonly balances = new Map<string, StatusReport['balances'][number]>();
  private readonly callers = new Map<string, CallerTrack>();
  private readonly startedAt: number;

  constructor(
    private readonly now: () => number,
    /** Masks key material out of vendor error text. */
    private readonly mask: (text: string) => string,
  ) {
    this.startedAt = now();
  }

  private track(id: string): DeploymentTrack {
    let t = this.deployments.get(id);
    if (!t) {
      t = { healthScore: null, healthy: true, attempts: 0, requests: 0, buckets: [], spendDay: day(this.now()), spendTodayUsd: 0 };
      this.deployments.set(id, t);
    }
    return t;
  }

  private bucket(t: DeploymentTrack, at: number): Bucket {
    return minuteBucket(t.buckets, at, (minute) => ({ minute, attempts: 0, attemptErrors: 0, requests: 0, errors: 0, latencies: [] }));
  }

  private modelBucket(model: string, at: number): ModelBucket {
    let buckets = this.modelBuckets.get(model);
    if (!buckets) this.modelBuckets.set(model, (buckets = []));
    return minuteBucket(buckets, at, (minute) => ({ minute, requests: 0, errors: 0 }));
  }

  /** USD of an answer's usage at the ledger's price (plugin-quota's table and defaults), else the deployment's `price`. */
  private costUsd(pipeline: Pipeline, candidate: CandidateRef, usage: Usage | undefined): number {
    if (!usage) return 0;
    const price = getService(pipeline, SERVICE.pricing)?.priceFor(candidate) ?? candidate.deployment.price;
    return price ? usageCostUsd(tokenCounts(usage), price) + toolCallsCostUsd(usage, price) : 0;
  }

  /** Per model as its clients saw it; per deployment tried, whether it answered (its retries count once). */
  private countRequest(e: SwitchyardEvents['request:end'][0]): void {
    const now = this.now();
    const m = this.modelBucket(e.model, now);
    m.requests++;
    if (!e.ok) m.errors++;
    // Most requests are one attempt: counted without the map that merges a deployment's several.
    if (e.attempts.length === 1) {
      const only = e.attempts[0]!;
      if (reachedDeployment(only)) this.countDeployment(only.candidate.deploymentId, only.ok, now);
      return;
    }
    const answered = new Map<string, boolean>();
    for (const a of e.attempts) {
      if (!reachedDeployment(a)) continue;
      answered.set(a.candidate.deploymentId, (answered.get(a.candidate.deploymentId) ?? false) || a.ok);
    }
    for (const [deploymentId, ok] of answered) this.countDeployment(deploymentId, ok, now);
  }

  /** A request one of whose attempts went to this deployment: `ok` when one of them answered. */
  private countDeployment(deploymentId: string, ok: boolean, now: number): void {
    const t = this.track(deploymentId);
    const b = this.bucket(t, now);
    t.requests++;
    b.requests++;
    if (!ok) b.errors++;
  }

  /** `callers`: track gateway keys too (the pipeline has virtual keys). Every request's outcome is read: the model verdicts count what clients saw. */
  observe(pipeline: Pipeline, { callers = false } = {}): () => void {
    // Only the config's models get a row: a client naming others cannot grow the board.
    const models = new Set(pipeline.modelNames());
    const detach = listenAll(pipeline.events, {
      'request:end': (e) => {
        if (models.has(e.model)) this.countRequest(e);
        if (callers) this.countCaller(pipeline, e);
      },
      'attempt:end': (e) => {
        if (e.outcome === 'ignored' && !e.ok) return;
        const t = this.track(e.candidate.deploymentId);
        const now = this.now();
        const b = this.bucket(t, now);
        t.attempts++;
        t.lastAttemptAt = now;
        b.attempts++;
        if (b.latencies.length < SAMPLES_PER_MINUTE) b.latencies.push(e.latencyMs);
        if (!e.ok && e.error) {
          b.attemptErrors++;
          t.lastError = { kind: e.error.kind, code: e.error.code, status: e.error.status, message: this.mask(e.error.message).slice(0, 300), at: new Date(now).toISOString() };
        }
        const cost = this.costUsd(pipeline, e.candidate, e.usage);
        if (cost > 0) {
          const today = day(now);
          if (t.spendDay !== today) Object.assign(t, { spendDay: today, spendTodayUsd: 0 });
          t.spendTodayUsd += cost;
        }
      },
      'breaker:open': (e) => this.breakers.set(e.deployment, { state: 'open', until: e.until, at: this.now() }),
      'breaker:half-open': (e) => this.breakers.set(e.deployment, { state: 'half-open', at: this.now() }),
      'breaker:close': (e) => this.breakers.set(e.deployment, { state: 'closed', at: this.now() }),
      'health:change': (e) => Object.assign(this.track(e.deployment), { healthy: e.healthy, healthScore: e.score, healthAt: this.now() }),
      'key:state': (e) => {
        // A parked key is out on every deployment of its endpoint; rest and pace are per deployment.
        const scope = e.condition === 'parked' ? e.endpoint : e.deployment;
        this.keys.set(`${scope}|${e.keyId}`, { state: e.condition, until: e.until, reason: this.mask(e.reason) });
      },
      'quota:threshold': (e) => this.budgets.set(`${e.scope}|${e.limit}`, { scope: e.scope, limit: e.limit, used: e.used, max: e.max, ratio: e.max > 0 ? e.used / e.max : 0, threshold: e.level }),
      'slo:change': (e) => this.slos.set(e.name, { name: e.name, state: e.state, scope: e.scope, since: new Date(e.at).toISOString(), successRate: e.successRate, samples: e.samples, target: e.target, recoverAt: e.recoverAt, actions: e.actions }),
      'balance:update': (e) => {
        const key = `${e.endpoint}|${e.keyId}`;
        // A failed read keeps the last funds known beside its error.
        const funds = e.error ? (this.balances.get(key) ?? { balances: [], low: false, dry: false }) : e;
        this.balances.set(key, { endpoint: e.endpoint, keyId: e.keyId, provider: e.provider, balances: funds.balances, minBalance: e.minBalance ?? null, low: funds.low, dry: funds.dry, checkedAt: new Date(e.checkedAt).toISOString(), error: e.error ? this.mask(e.error) : null });
      },
    });
    return detach;
  }

  private countCaller(pipeline: Pipeline, e: SwitchyardEvents['request:end'][0]): void {
    if (!e.caller) return;
    const t = this.callerTrack(e.caller.keyId, e.caller.keyName, e.caller.team);
    t.requests++;
    if (!e.ok) t.errors++;
    for (const a of e.attempts) t.spendTodayUsd += this.costUsd(pipeline, a.candidate, a.usage);
  }

  private callerTrack(keyId: string, keyName: string | undefined, team: string | undefined): CallerTrack {
    const today = day(this.now());
    let id = keyId;
    let t = this.callers.get(id);
    if (!t && this.callers.size >= MAX_CALLERS) t = this.callers.get((id = OTHER_CALLER));
    if (!t) {
      const other = id === OTHER_CALLER;
      t = { keyId: id, keyName: other ? null : keyName ?? null, team: other ? null : team ?? null, requests: 0, errors: 0, spendTodayUsd: 0, day: today };
      this.callers.set(id, t);
    }
    if (t.day !== today) Object.assign(t, { day: today, requests: 0, errors: 0, spendTodayUsd: 0 });
    return t;
  }

  private callerReport(now: number): CallerStatus[] {
    const today = day(now);
    const rows: CallerStatus[] = [];
    for (const t of this.callers.values()) {
      if (t.day === today) rows.push({ keyId: t.keyId, keyName: t.keyName, team: t.team, requests: t.requests, errors: t.errors, spendTodayUsd: Number(t.spendTodayUsd.toFixed(6)) });
    }
    return rows.sort((a, b) => b.spendTodayUsd - a.spendTodayUsd || b.requests - a.requests);
  }

  private keyView(endpoint: string, deployment: string, keyId: string, now: number): DeploymentStatus['keys'][number] {
    for (const scope of [endpoint, deployment]) {
      const k = this.keys.get(`${scope}|${keyId}`);
      if (k && k.until > now) return { id: keyId, state: k.state, until: new Date(k.until).toISOString(), reason: k.reason };
    }
    return { id: keyId, state: 'active' };
  }

  /** A deployment's breaker: the worst of its candidates' (open beats half-open beats closed); `at` is the latest change of any. */
  private breakerOf(candidateIds: string[]): BreakerTrack | undefined {
    let worst: BreakerTrack | undefined;
    let latest = -Infinity;
    const rank = { closed: 0, 'half-open': 1, open: 2 } as const;
    for (const id of candidateIds) {
      const b = this.breakers.get(id);
      if (!b) continue;
      if (!worst || rank[b.state] > rank[worst.state]) worst = b;
      latest = Math.max(latest, b.at);
    }
    return worst && { ...worst, at: latest };
  }

  private modelVerdict(name: string, now: number, deployments: DeploymentStatus[]): Omit<ModelStatus, 'name' | 'deployments'> {
    const recent = (this.modelBuckets.get(name) ?? []).filter((b) => b.minute > now - RECENT_MINUTES * MINUTE);
    const requests = recent.reduce((n, b) => n + b.requests, 0);
    const errors = recent.reduce((n, b) => n + b.errors, 0);
    const successRate = rate(requests - errors, requests);
    const window = `in the last ${RECENT_MINUTES} min`;
    if (successRate === null) return { state: 'idle', verdict: `idle: no requests ${window}`, requests, errors, successRate, errorRate: null };
    const answered = `${requests - errors} of ${requests} requests answered ${window}`;
    const troubled = deployments.filter((d) => !d.stale && (d.state === 'down' || d.state === 'failing')).map((d) => `${d.id} ${d.state}`);
    const state: ModelState = successRate < FAILING_SUCCESS_RATE ? 'failing' : successRate < OK_SUCCESS_RATE || troubled.length > 0 ? 'degraded' : 'ok';
    return { state, verdict: `${state}: ${answered}${troubled.length ? ` (${troubled.join(', ')})` : ''}`, requests, errors, successRate, errorRate: rate(errors, requests) };
  }

  report(pipeline: Pipeline | undefined, pipelineNow: () => number = this.now): StatusReport {
    const now = this.now();
    const recentFrom = now - RECENT_MINUTES * MINUTE;
    const models: StatusReport['models'] = [];
    let spendToday = 0;
    const counted = new Set<string>();
    const health = pipeline ? getService(pipeline, SERVICE.health)?.report() : undefined;
    for (const name of pipeline?.modelNames() ?? []) {
      const byDeployment = new Map<string, DeploymentStatus>();
      const candidates = pipeline!.candidatesFor(name);
      for (const c of candidates) {
        let status = byDeployment.get(c.deploymentId);
        if (!status) {
          const t = this.track(c.deploymentId);
          const recent = t.buckets.filter((b) => b.minute > recentFrom);
          const latencies = recent.flatMap((b) => b.latencies).sort((a, b) => a - b);
          const sum = (field: 'attempts' | 'attemptErrors' | 'requests' | 'errors') => recent.reduce((n, b) => n + b[field], 0);
          const requests = sum('requests');
          const errorRate = rate(sum('errors'), requests);
          const spend = t.spendDay === day(now) ? t.spendTodayUsd : 0;
          if (!counted.has(c.deploymentId)) {
            counted.add(c.deploymentId);
            spendToday += spend;
          }
          const breaker = this.breakerOf(candidates.filter((x) => x.deploymentId === c.deploymentId).map((x) => x.id)) ?? { state: 'closed' as const, until: undefined, at: undefined };
          const evidence = [t.lastAttemptAt, t.healthAt, breaker.at].filter((x): x is number => x !== undefined);
          const asOf = evidence.length ? Math.max(...evidence) : undefined;
          const stale = asOf !== undefined && asOf <= recentFrom;
          const state: DeploymentState = requests === 0 ? 'idle' : errorRate! > 1 - FAILING_SUCCESS_RATE ? 'failing' : 'serving';
          status = {
            id: c.deploymentId,
            endpoint: c.endpoint.name,
            upstreamModel: c.model,
            state,
            breaker: breaker.state,
            breakerUntil: iso(breaker.until),
            healthScore: t.healthScore,
            healthy: t.healthy && breaker.state !== 'open',
            badgeAsOf: iso(asOf),
            badgeAgeMs: asOf === undefined ? null : now - asOf,
            stale,
            lastAttemptAt: iso(t.lastAttemptAt),
            p50Ms: percentile(latencies, 50),
            p95Ms: percentile(latencies, 95),
            errorRate,
            attemptErrorRate: rate(sum('attemptErrors'), sum('attempts')),
            errorRateEwma: health?.[c.deploymentId]?.errorRateEwma ?? null,
            patterns: (health?.[c.deploymentId]?.patterns ?? []).map((p) => ({ pattern: p.pattern, kind: p.kind, code: p.code, ...(p.status !== undefined ? { status: p.status } : {}), since: new Date(p.since).toISOString() })),
            requests: t.requests,
            attempts: t.attempts,
            lastError: t.lastError ?? null,
            keys: [],
            spendTodayUsd: Number(spend.toFixed(6)),
            series: this.series(t, now),
          };
          byDeployment.set(c.deploymentId, status);
        }
        if (!status.keys.some((k) => k.id === c.keyId)) status.keys.push({ ...this.keyView(c.endpoint.name, c.deploymentId, c.keyId, pipelineNow()), breaker: this.breakers.get(c.id)?.state ?? 'closed' });
      }
      const deployments = [...byDeployment.values()];
      // Down: no key left to call (each behind an open breaker, parked or resting).
      for (const d of deployments) if (d.keys.every((k) => k.breaker === 'open' || k.state === 'parked' || k.state === 'resting')) d.state = 'down';
      models.push({ name, ...this.modelVerdict(name, now, deployments), deployments });
    }
    return { models, budgets: [...this.budgets.values()], slos: [...this.slos.values()], balances: [...this.balances.values()], callers: this.callerReport(now), spendTodayUsd: Number(spendToday.toFixed(6)), startedAt: new Date(this.startedAt).toISOString(), now: new Date(now).toISOString() };
  }

  private series(t: DeploymentTrack, now: number): DeploymentStatus['series'] {
    const last = Math.floor(now / MINUTE) * MINUTE;
    const out: DeploymentStatus['series'] = [];
    for (let m = last - (HISTORY_MINUTES - 1) * MINUTE; m <= last; m += MINUTE) {
      const b = t.buckets.find((x) => x.minute === m);
      const sorted = b ? [...b.latencies].sort((x, y) => x - y) : [];
      out.push({ minute: new Date(m).toISOString(), requests: b?.requests ?? 0, errorRate: b ? rate(b.errors, b.requests) : null, p95Ms: percentile(sorted, 95) });
    }
    return out;
  }
}

/** The bucket of `at`'s minute at the end of `buckets`, dropping those older than the history. */
function minuteBucket<B extends { minute: number }>(buckets: B[], at: number, create: (minute: number) => B): B {
  const minute = Math.floor(at / MINUTE) * MINUTE;
  let last = buckets[buckets.length - 1];
  if (!last || last.minute !== minute) {
    last = create(minute);
    buckets.push(last);
    while (buckets.length > 0 && buckets[0].minute <= minute - HISTORY_MINUTES * MINUTE) buckets.shift();
  }
  return last;
}
