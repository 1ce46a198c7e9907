/**
 * Budgets and limits before the call, the real cost after it. Every counter is one StateStore
 * `increment` (atomic on Redis), so gateways sharing a store share exact counts:
 *
 * - reserve: the request's estimated cost is added to the spend of its key and its team for the
 *   day and the month (where a budget applies); a counter that goes past its hard limit rolls
 *   every reservation of the request back and refuses it. Concurrent requests therefore never
 *   spend more than the limit between them, as long as each costs no more than its estimate
 *   (the estimate counts `max_tokens` of output). Requests a minute, in flight and tokens a
 *   minute count the same way (tokens: the request's upper bound, settled to what it used).
 * - settle: when the request ends, the difference between its real cost and the reservation is
 *   added (the reservation goes away when the request cost nothing).
 */
import { TENANT_ERRORS } from '@switchyard/contracts';
import { SwitchyardError, type StateStore } from '@switchyard/core';
import { counterTtlMs, formatUsd, fromMicros, minuteOf, MINUTE_MS, toMicros, windowOf, type Window } from './budget-windows.js';
import type { Budget, BudgetWindow, Limits } from './options.js';

/** A crashed gateway's requests in flight stop counting this long after the key's last change. */
const IN_FLIGHT_TTL_MS = 15 * MINUTE_MS;
/** Keys whose scopes `scopesOf` remembers before it starts again. */
const SCOPES_REMEMBERED = 10_000;

export interface SpendScope {
  scope: 'key' | 'team';
  /** Key id or team name. */
  id: string;
  /** The key's name, or the team name. */
  name: string;
  /** What messages call it: the key's name or the team's. */
  label: string;
  window: Window;
  counter: string;
  budget: BudgetWindow | undefined;
}

export interface Reservation {
  /** When it was made (epoch ms): its counters' TTLs count from there. */
  at: number;
  scopes: SpendScope[];
  /** Per scope: micro-dollars reserved there (0 where no budget applies). */
  reserved: number[];
  /** Per scope: the counter's value after the reservation (for alerts when the real cost equals it). */
  values: number[];
  inFlightKey?: string;
  tpmKey?: string;
  /** Tokens reserved on `tpmKey`. */
  tpmReserved?: number;
}

export interface ScopeSpend {
  scope: SpendScope;
  micros: number;
}

export interface Caller {
  keyId: string;
  keyName: string;
  team?: string;
  limits?: Limits;
  budget?: Budget;
  teamBudget?: Budget;
}

interface Step {
  key: string;
  by: number;
  ttlMs: number;
  /** The refusal when the counter ends up past its limit; undefined when it cannot refuse. */
  refuse?: (value: number) => SwitchyardError | undefined;
}

export class SpendCounters {
  /** Key id → its scopes in the windows they were made for, and what they were made from. */
  private readonly scopesMemo = new Map<string, { caller: Caller; day: Window; month: Window; scopes: SpendScope[] }>();

  constructor(
    private readonly store: StateStore,
    private readonly prefix: string,
  ) {}

  spendKey(scope: SpendScope['scope'], id: string, window: Window): string {
    return `${this.prefix}:spend:${scope}:${id}:${window.id}`;
  }

  private minuteKey(kind: 'rpm' | 'tpm', id: string, now: number): string {
    return `${this.prefix}:${kind}:${id}:${minuteOf(now)}`;
  }

  private inFlightKey(id: string): string {
    return `${this.prefix}:in-flight:${id}`;
  }

  /**
   * The key's and its team's spend scopes in the day and month of `now`. The same objects (and
   * counter names, hashed once by the store) for every request of a key until a window turns or
   * its budgets change: making them was a microsecond a request.
   */
  scopesOf(caller: Caller, now: number): SpendScope[] {
    const day = windowOf('day', now);
    const month = windowOf('month', now);
    const known = this.scopesMemo.get(caller.keyId);
    if (known && known.day === day && known.month === month && sameScopes(known.caller, caller)) return known.scopes;
    const scopes: SpendScope[] = [];
    for (const window of [day, month]) {
      const period = window.period;
      scopes.push({ scope: 'key', id: caller.keyId, name: caller.keyName, label: `key ${caller.keyId} (${caller.keyName})`, window, counter: this.spendKey('key', caller.keyId, window), budget: caller.budget?.[period] });
      if (caller.team !== undefined) scopes.push({ scope: 'team', id: caller.team, name: caller.team, label: `team ${caller.team}`, window, counter: this.spendKey('team', caller.team, window), budget: caller.teamBudget?.[period] });
    }
    if (this.scopesMemo.size >= SCOPES_REMEMBERED) this.scopesMemo.clear();
    this.scopesMemo.set(caller.keyId, { caller, day, month, scopes });
    return scopes;
  }

  /**
   * Reserves `estimateMicros` on every budgeted scope and counts the request against its
   * limits; rejects with the first refusal (everything rolled back). A key without budgets or
   * limits is answered at once: nothing to check, its spend is counted at settlement.
   */
  reserve(caller: Caller, estimateMicros: number, now: number, estimateTokens = 0): Reservation | Promise<Reservation> {
    const scopes = this.scopesOf(caller, now);
    const reserved = scopes.map((s) => (s.budget ? estimateMicros : 0));
    const steps: (Step | undefined)[] = scopes.map((s) => (s.budget ? { key: s.counter, by: estimateMicros, ttlMs: counterTtlMs(s.window, now), refuse: (value) => budgetRefusal(s, value, estimateMicros, now) } : undefined));
    const limits = caller.limits ?? {};
    if (limits.rpm !== undefined) {
      const rpm = limits.rpm;
      steps.push({ key: this.minuteKey('rpm', caller.keyId, now), by: 1, ttlMs: 2 * MINUTE_MS, refuse: (v) => (v > rpm ? limitRefusal(caller, `${rpm} requests a minute`, MINUTE_MS - (now % MINUTE_MS)) : undefined) });
    }
    const inFlightKey = limits.concurrency !== undefined ? this.inFlightKey(caller.keyId) : undefined;
    if (inFlightKey) {
      const most = limits.concurrency!;
      steps.push({ key: inFlightKey, by: 1, ttlMs: IN_FLIGHT_TTL_MS, refuse: (v) => (v > most ? limitRefusal(caller, `${most} requests in flight`, 1_000) : undefined) });
    }
    const tpmKey = limits.tpm !== undefined ? this.minuteKey('tpm', caller.keyId, now) : undefined;
    if (tpmKey) {
      // The request's upper bound of tokens is held until it settles: concurrent requests cannot all pass a limit no one has used yet.
      const tpm = limits.tpm!;
      steps.push({ key: tpmKey, by: estimateTokens, ttlMs: 2 * MINUTE_MS, refuse: (v) => (v > tpm || (estimateTokens === 0 && v >= tpm) ? limitRefusal(caller, `${tpm} tokens a minute${estimateTokens > tpm ? ` (this request may use up to ${estimateTokens})` : ''}`, MINUTE_MS - (now % MINUTE_MS)) : undefined) });
    }
    const tpmReserved = tpmKey ? estimateTokens : undefined;
    if (steps.every((step) => step === undefined)) return { at: now, scopes, reserved, values: reserved, inFlightKey, tpmKey, tpmReserved };
    return this.check(now, scopes, reserved, steps, inFlightKey, tpmKey, tpmReserved);
  }

  private async check(at: number, scopes: SpendScope[], reserved: number[], steps: (Step | undefined)[], inFlightKey: string | undefined, tpmKey: string | undefined, tpmReserved: number | undefined): Promise<Reservation> {
    const values = await Promise.all(steps.map((step) => (step ? this.store.increment(step.key, step.by, step.ttlMs) : Promise.resolve(0))));
    let refusal: SwitchyardError | undefined;
    for (let i = 0; i < steps.length && !refusal; i++) refusal = steps[i]?.refuse?.(values[i]);
    if (refusal) {
      await Promise.all(steps.map((step) => (step ? this.store.increment(step.key, -step.by, step.ttlMs) : undefined)));
      throw refusal;
    }
    return { at, scopes, reserved, values: values.slice(0, scopes.length), inFlightKey, tpmKey, tpmReserved };
  }

  /** Adds the real cost in place of the reservation; the spend of each budgeted scope after it. */
  async settle(reservation: Reservation, actualMicros: number, tokens: number): Promise<ScopeSpend[]> {
    const { scopes } = reservation;
    const work: Promise<number>[] = scopes.map((s, i) => {
      const delta = actualMicros - reservation.reserved[i];
      if (delta !== 0) return this.store.increment(s.counter, delta, counterTtlMs(s.window, reservation.at));
      return Promise.resolve(reservation.values[i]);
    });
    const extra: Promise<unknown>[] = [];
    if (reservation.inFlightKey) extra.push(this.store.increment(reservation.inFlightKey, -1, IN_FLIGHT_TTL_MS));
    const tpmDelta = tokens - (reservation.tpmReserved ?? 0);
    if (reservation.tpmKey && tpmDelta !== 0) extra.push(this.store.increment(reservation.tpmKey, tpmDelta, 2 * MINUTE_MS));
    const [values] = await Promise.all([Promise.all(work), Promise.all(extra)]);
    const spends: ScopeSpend[] = [];
    for (let i = 0; i < scopes.length; i++) if (scopes[i].budget && (actualMicros !== 0 || reservation.reserved[i] !== 0)) spends.push({ scope: scopes[i], micros: values[i] });
    return spends;
  }

  /** The cost of an attempt recorded after its request settled (a hedge loser, aborted as the winner answered, ends later). */
  addLate(reservation: Reservation, actualMicros: number, tokens: number): Promise<ScopeSpend[]> {
    return this.settle({ at: reservation.at, scopes: reservation.scopes, reserved: reservation.scopes.map(() => 0), values: reservation.values, tpmKey: reservation.tpmKey }, actualMicros, tokens);
  }

  /** Spend so far in each window of a key or team (micro-dollars), and the key's counts this minute. */
  async read(scope: SpendScope['scope'], id: string, now: number): Promise<{ day: number; month: number; rpm: number; tpm: number; inFlight: number }> {
    const [day, month, rpm, tpm, inFlight] = await Promise.all([
      this.store.get<number>(this.spendKey(scope, id, windowOf('day', now))),
      this.store.get<number>(this.spendKey(scope, id, windowOf('month', now))),
      scope === 'key' ? this.store.get<number>(this.minuteKey('rpm', id, now)) : undefined,
      scope === 'key' ? this.store.get<number>(this.minuteKey('tpm', id, now)) : undefined,
      scope === 'key' ? this.store.get<number>(this.inFlightKey(id)) : undefined,
    ]);
    return { day: day ?? 0, month: month ?? 0, rpm: rpm ?? 0, tpm: tpm ?? 0, inFlight: inFlight ?? 0 };
  }
}

/** Scopes made for `a` serve `b`: the same key name, team and budgets. */
function sameScopes(a: Caller, b: Caller): boolean {
  return a.keyName === b.keyName && a.team === b.team && a.budget === b.budget && a.teamBudget === b.teamBudget;
}

/** The hard limit of a budget window, in micro-dollars. */
export function hardLimitMicros(budget: BudgetWindow): number {
  return toMicros(budget.limitUsd * budget.hard);
}

function budgetRefusal(s: SpendScope, value: number, estimateMicros: number, now: number): SwitchyardError | undefined {
  const limit = hardLimitMicros(s.budget!);
  // A request priced at 0 still stops once the budget is used up.
  if (value <= limit && !(estimateMicros === 0 && value >= limit)) return undefined;
  const before = value - estimateMicros;
  const spent = `${formatUsd(fromMicros(Math.max(0, before)))} spent or reserved of ${formatUsd(s.budget!.limitUsd)}${s.budget!.hard !== 1 ? ` (refused past ${Math.round(s.budget!.hard * 100)} %)` : ''}`;
  const need = before < limit ? `; this request may cost up to ${formatUsd(fromMicros(estimateMicros))}` : '';
  return new SwitchyardError('budget-exhausted', `budget exhausted: the ${s.window.period} budget of ${s.label} for ${s.window.id}: ${spent}${need}; it resets at ${new Date(s.window.resetsAt).toISOString()}`, {
    code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_BUDGET,
    status: 429,
    retryAfterMs: s.window.resetsAt - now,
    retryable: false,
    path: `${s.scope}.budget.${s.window.period}`,
  });
}

function limitRefusal(caller: Caller, limit: string, retryAfterMs: number): SwitchyardError {
  return new SwitchyardError('rate-limit', `rate limit of key ${caller.keyId} (${caller.keyName}): at most ${limit}`, { code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_RATE_LIMIT, status: 429, retryAfterMs, retryable: false });
}
