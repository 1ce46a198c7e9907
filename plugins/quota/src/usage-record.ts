/**
 * One line of the usage log and the day totals built from it. The same functions add a
 * record to the StateStore's day totals (the gateway's GET /switchyard/usage) and to totals
 * read back from the log (`switchyard usage --log`), so both print the same numbers: costs
 * are summed as integer micro-dollars, never as floating-point dollars.
 */
export interface UsageRecord {
  /** ISO time of the attempt's end. */
  at: string;
  requestId: string;
  attempt: number;
  /** The logical model asked for. */
  model: string;
  /** `endpoint/model`: the upstream deployment. */
  deployment: string;
  endpoint: string;
  /** The endpoint's provider id (`openai`, `anthropic`, `deepseek`…): the vendor a bill comes from. Absent in older logs. */
  provider?: string;
  key: string;
  /** The gateway key the client called with (`CallOptions.caller`), when the host knew one. */
  gatewayKey?: string;
  /** That key's team. */
  team?: string;
  tags: Record<string, string>;
  /** Outcome class: success, endpoint-failure, rate-limited, key-failure, ignored… */
  outcome: string;
  ok: boolean;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  /** The tokens are our estimate: the vendor reported none. */
  estimated: boolean;
  /** How: `output-seen` (failed after the headers: input estimate + the output seen) or `elapsed` (timed out before them: input estimate + the time × the deployment's tokens per second). */
  estimate?: 'output-seen' | 'elapsed';
}

/** `key` is the vendor key (`endpoint#index`); `gatewayKey` the gateway key the client called with, `team` its team. */
export const GROUP_BY = ['deployment', 'key', 'model', 'tag', 'day', 'gatewayKey', 'team'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Sums for one group; `costMicros` in millionths of a USD. */
export interface DayTotals {
  requests: number;
  failures: number;
  billedInputTokens: number;
  billedOutputTokens: number;
  billedCachedTokens: number;
  billedCostMicros: number;
  estimatedAttempts: number;
  estimatedInputTokens: number;
  estimatedOutputTokens: number;
  estimatedCostMicros: number;
}

/** Everything recorded on one UTC day: `total` and one map per grouping. */
export interface DayDoc {
  total: DayTotals;
  deployment: Record<string, DayTotals>;
  key: Record<string, DayTotals>;
  model: Record<string, DayTotals>;
  tag: Record<string, DayTotals>;
  /** Absent in days written before callers were recorded. */
  gatewayKey?: Record<string, DayTotals>;
  team?: Record<string, DayTotals>;
}

export function emptyDay(): DayDoc {
  return { total: zero(), deployment: {}, key: {}, model: {}, tag: {}, gatewayKey: {}, team: {} };
}

function zero(): DayTotals {
  return { requests: 0, failures: 0, billedInputTokens: 0, billedOutputTokens: 0, billedCachedTokens: 0, billedCostMicros: 0, estimatedAttempts: 0, estimatedInputTokens: 0, estimatedOutputTokens: 0, estimatedCostMicros: 0 };
}

export const micros = (usd: number) => Math.round(usd * 1_000_000);

/** The last time `isoTime` wrote, and its text. */
let lastMs = Number.NaN;
let lastIso = '';

/** `new Date(ms).toISOString()`, remembered for the millisecond last asked: a record per attempt, several a millisecond under load, and a Date and its text cost 0.6 µs. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** The time part of a UTC time as `toISOString` writes it (the date part is checked apart). */
const UTC_TIME = /^T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?Z$/;
/** The last day `dayOf` made with a Date: a valid date, so a UTC time that starts with it is of that day. */
let lastDay = '';

/** The UTC day (`YYYY-MM-DD`) of a time. A throw for a time that is none (`RangeError`), as `toISOString`. */
export function dayOf(at: string | number): string {
  // A record's time is the gateway's own toISOString(): one of the day seen last needs no Date (1.6 µs a request).
  if (typeof at === 'string' && lastDay !== '' && at.startsWith(lastDay) && UTC_TIME.test(at.slice(lastDay.length))) return lastDay;
  lastDay = new Date(at).toISOString().slice(0, 10);
  return lastDay;
}

/** Adds one record to a day (in place) and returns it. */
export function addRecord(day: DayDoc, r: UsageRecord): DayDoc {
  addTo(targetsOf(r, day.total, (group, key) => slot((day[group] ??= {}), key)), r);
  return day;
}

/**
 * A new day: `day` with the records added, `day` itself left as it was (it may be the store's
 * own object, compared by the compare-and-set). Copy on write: only the groups and totals the
 * records touch are copied, where a `structuredClone` of the whole document per write was the
 * ledger's largest item (16 µs of a request in `bench:gateway`'s tenants contender).
 */
export function withRecords(day: DayDoc | undefined, records: readonly UsageRecord[]): DayDoc {
  if (!day) return records.reduce(addRecord, emptyDay());
  const next: DayDoc = Object.assign({}, day, { total: Object.assign({}, day.total) });
  // What is still `day`'s own is copied on first touch: a group or totals object of `next` that is
  // not the very one `day` holds was made by this call already.
  const slotOf = (group: GroupName, key: string): DayTotals => {
    const before = day[group];
    let map = next[group];
    if (map === before) next[group] = map = Object.assign({}, before);
    let totals = map![key];
    if (totals === undefined) totals = map![key] = zero();
    else if (totals === before?.[key]) totals = map![key] = Object.assign({}, totals);
    return totals;
  };
  for (const r of records) addTo(targetsOf(r, next.total, slotOf), r);
  return next;
}

type GroupName = Exclude<keyof DayDoc, 'total'>;

/** The totals one record adds to: the day's, and its deployment's, key's, model's, tags', gateway key's and team's. */
function targetsOf(r: UsageRecord, total: DayTotals, slotOf: (group: GroupName, key: string) => DayTotals): DayTotals[] {
  const targets = [total, slotOf('deployment', r.deployment), slotOf('key', r.key), slotOf('model', r.model)];
  for (const [k, v] of Object.entries(r.tags)) targets.push(slotOf('tag', `${k}=${v}`));
  if (r.gatewayKey !== undefined) targets.push(slotOf('gatewayKey', r.gatewayKey));
  if (r.team !== undefined) targets.push(slotOf('team', r.team));
  return targets;
}

function addTo(targets: DayTotals[], r: UsageRecord): void {
  const cost = micros(r.costUsd);
  for (const t of targets) {
    if (r.outcome !== 'ignored') {
      if (r.ok) t.requests += 1;
      else t.failures += 1;
    }
    if (r.estimated) {
      t.estimatedAttempts += 1;
      t.estimatedInputTokens += r.inputTokens;
      t.estimatedOutputTokens += r.outputTokens;
      t.estimatedCostMicros += cost;
    } else {
      t.billedInputTokens += r.inputTokens;
      t.billedOutputTokens += r.outputTokens;
      t.billedCachedTokens += r.cachedTokens;
      t.billedCostMicros += cost;
    }
  }
}

function slot(map: Record<string, DayTotals>, key: string): DayTotals {
  return (map[key] ??= zero());
}

function addTotals(into: DayTotals, from: DayTotals): void {
  for (const k of Object.keys(into) as (keyof DayTotals)[]) into[k] += from[k];
}

/** What the route and the CLI print for one group. */
export interface UsageLine {
  requests: number;
  failures: number;
  billed: { inputTokens: number; outputTokens: number; cachedTokens: number; costUsd: number };
  estimated: { attempts: number; inputTokens: number; outputTokens: number; costUsd: number };
  /** billed + estimated. */
  costUsd: number;
}

export interface UsageQuery {
  /** First UTC day, `YYYY-MM-DD`. */
  since: string;
  /** Last UTC day, inclusive. */
  until: string;
  groupBy: GroupBy;
}

export interface UsageAnswer extends UsageQuery {
  total: UsageLine;
  groups: Record<string, UsageLine>;
}

function line(t: DayTotals): UsageLine {
  return {
    requests: t.requests,
    failures: t.failures,
    billed: { inputTokens: t.billedInputTokens, outputTokens: t.billedOutputTokens, cachedTokens: t.billedCachedTokens, costUsd: t.billedCostMicros / 1_000_000 },
    estimated: { attempts: t.estimatedAttempts, inputTokens: t.estimatedInputTokens, outputTokens: t.estimatedOutputTokens, costUsd: t.estimatedCostMicros / 1_000_000 },
    costUsd: (t.billedCostMicros + t.estimatedCostMicros) / 1_000_000,
  };
}

/** The answer for `query` from the days it covers (`days`: day → its totals; missing days are empty). */
export function answerFrom(query: UsageQuery, days: ReadonlyMap<string, DayDoc>): UsageAnswer {
  const total = zero();
  const groups: Record<string, DayTotals> = {};
  for (const [day, doc] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    if (day < query.since || day > query.until) continue;
    addTotals(total, doc.total);
    const entries: [string, DayTotals][] = query.groupBy === 'day' ? [[day, doc.total]] : Object.entries(doc[query.groupBy] ?? {});
    for (const [name, t] of entries) addTotals((groups[name] ??= zero()), t);
  }
  const sorted = Object.keys(groups).sort();
  return { ...query, total: line(total), groups: Object.fromEntries(sorted.map((k) => [k, line(groups[k])])) };
}

/** Every UTC day from `since` to `until`, inclusive (at most `max`). */
export function daysBetween(since: string, until: string, max = 400): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); out.length < max && dayOf(t) <= until; t += 86_400_000) out.push(dayOf(t));
  return out;
}

export class UsageQueryError extends Error {
  override readonly name = 'UsageQueryError';
}

/**
 * `since` / `until` as `YYYY-MM-DD`, an ISO time or epoch milliseconds, to whole UTC days;
 * defaults: the last 30 days up to today. Both the route and the CLI use this.
 */
export function parseUsageQuery(input: { since?: string | null; until?: string | null; groupBy?: string | null }, now: number): UsageQuery {
  const until = input.until ? toDay(input.until, 'until') : dayOf(now);
  const since = input.since ? toDay(input.since, 'since') : dayOf(Date.parse(`${until}T00:00:00Z`) - 29 * 86_400_000);
  const groupBy = (input.groupBy ?? 'deployment') as GroupBy;
  if (!GROUP_BY.includes(groupBy)) throw new UsageQueryError(`groupBy must be one of ${GROUP_BY.join(', ')}, got "${input.groupBy}"`);
  if (since > until) throw new UsageQueryError(`since (${since}) is after until (${until})`);
  return { since, until, groupBy };
}

function toDay(value: string, name: string): string {
  const t = /^\d+$/.test(value) ? Number(value) : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  // A number past what a Date holds (±8.64e15 ms) is as malformed as text that is no date.
  if (!Number.isFinite(t) || Number.isNaN(new Date(t).getTime())) throw new UsageQueryError(`${name} must be a date (YYYY-MM-DD), an ISO time or epoch milliseconds, got "${value}"`);
  return dayOf(t);
}

/** `?forecast=day|month` (absent: no forecast). */
export function parseForecastPeriod(value: string | null | undefined): 'day' | 'month' | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === 'day' || value === 'month') return value;
  throw new UsageQueryError(`forecast must be day or month, got "${value}"`);
}
