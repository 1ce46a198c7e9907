/**
 * Budgets: counters per scope and window in the StateStore. They are checked before a call
 * (route) and spent after it (recordAttempt); `quota:threshold` fires once per crossing per
 * window, guarded by a counter in the store so several gateway instances agree.
 */
import type { Candidate, Pipeline, RequestContext } from '@switchyard/core';
import { formatDuration } from '@switchyard/core/internal';
import { LIMIT_NAMES, type Budget, type LimitName, type ScopeName } from './options.js';
import { windowOf, type Window } from './windows.js';

/** Spend is counted in micro-dollars so the store only ever adds integers. */
const MICRO = 1_000_000;

export interface Amounts {
  rpm: number;
  tpm: number;
  /** USD. */
  spend: number;
}

/** Tokens a request or an attempt holds on `tpm` counters until it ends. */
export interface TokenHold {
  counters: { key: string; ttlMs: number }[];
  tokens: number;
}

export interface Exhaustion {
  scope: string;
  limit: LimitName;
  used: number;
  max: number;
  resetsAt: number;
  /** Tokens the request may use (a `tpm` limit it would pass). */
  need?: number;
}

export interface SpendStatus {
  scope: string;
  limit: 'spendPerDay' | 'spendPerMonth';
  max: number;
  used: number;
  window: Window;
}

interface ScopedBudget {
  scope: ScopeName;
  value: string;
  id: string;
  budget: Budget;
}

export class BudgetBook {
  private readonly budgets: ScopedBudget[];

  constructor(
    budgets: readonly Budget[],
    private readonly pipeline: Pipeline,
    private readonly prefix: string,
    private readonly thresholds: readonly number[],
  ) {
    this.budgets = budgets.map((budget) => {
      const scope = (['endpoint', 'key', 'model', 'tag'] as const).find((s) => budget[s] !== undefined)!;
      const value = budget[scope]!;
      return { scope, value, id: `${scope}:${value}`, budget };
    });
  }

  get size(): number {
    return this.budgets.length;
  }

  get hasTokenLimits(): boolean {
    return this.budgets.some((b) => b.budget.tpm !== undefined);
  }

  get hasSpendLimits(): boolean {
    return this.budgets.some((b) => b.budget.spendPerDay !== undefined || b.budget.spendPerMonth !== undefined);
  }

  /**
   * Budgets that apply to the whole request (model and tag scopes). A gateway client's tags
   * count only for budgets with `clientTags: true`; the tags its key sets (`ctx.caller.tags`,
   * which win over the client's) count for all.
   */
  requestBudgets(ctx: RequestContext): ScopedBudget[] {
    const tags = ctx.request.switchyard?.tags ?? {};
    const trusted = ctx.caller ? (ctx.caller.tags ?? {}) : tags;
    return this.budgets.filter((b) => (b.scope === 'model' ? b.value === ctx.model : b.scope === 'tag' ? tagMatches(b.value, b.budget.clientTags ? tags : trusted) : false));
  }

  /** Budgets that apply to one candidate (endpoint and key scopes). */
  candidateBudgets(candidate: Candidate): ScopedBudget[] {
    return this.budgets.filter((b) => (b.scope === 'endpoint' ? b.value === candidate.endpoint.name : b.scope === 'key' ? b.value === candidate.keyId : false));
  }

  /** The first exhausted limit among `budgets`, if any; a `tpm` limit is exhausted when `tokens` more would pass it. */
  async exhausted(budgets: readonly ScopedBudget[], memo = new Map<string, Promise<Exhaustion | undefined>>(), tokens = 0): Promise<Exhaustion | undefined> {
    for (const b of budgets) {
      let pending = memo.get(b.id);
      if (!pending) {
        pending = this.check(b, tokens);
        memo.set(b.id, pending);
      }
      const found = await pending;
      if (found) return found;
    }
    return undefined;
  }

  private async check(b: ScopedBudget, tokens: number): Promise<Exhaustion | undefined> {
    const now = this.pipeline.clock.now();
    for (const limit of LIMIT_NAMES) {
      const max = b.budget[limit];
      if (max === undefined) continue;
      const window = windowOf(limit, now);
      const raw = (await this.pipeline.store.get<number>(this.counterKey(b, limit, window.start))) ?? 0;
      const used = isSpend(limit) ? raw / MICRO : raw;
      if (used >= max) return { scope: b.id, limit, used, max, resetsAt: window.end };
      if (limit === 'tpm' && used + tokens > max) return { scope: b.id, limit, used, max, resetsAt: window.end, need: tokens };
    }
    return undefined;
  }

  /**
   * Holds `tokens` on the `tpm` counter of every budget in `budgets` that has one (one atomic
   * increment each): concurrent requests cannot all pass a limit none of them has used yet.
   * A counter that ends up past its limit rolls the whole hold back and is answered instead.
   */
  async hold(budgets: readonly ScopedBudget[], tokens: number): Promise<TokenHold | Exhaustion> {
    const now = this.pipeline.clock.now();
    const window = windowOf('tpm', now);
    const ttlMs = window.end - now + 1000;
    const held = budgets.filter((b) => b.budget.tpm !== undefined);
    const counters = held.map((b) => ({ key: this.counterKey(b, 'tpm', window.start), ttlMs }));
    if (tokens <= 0 || counters.length === 0) return { counters: [], tokens: 0 };
    const values = await Promise.all(counters.map((c) => this.pipeline.store.increment(c.key, tokens, c.ttlMs)));
    const over = held.findIndex((b, i) => values[i] > b.budget.tpm!);
    if (over < 0) return { counters, tokens };
    await this.release({ counters, tokens });
    return { scope: held[over].id, limit: 'tpm', used: values[over] - tokens, max: held[over].budget.tpm!, resetsAt: window.end, need: tokens };
  }

  /** Gives a hold's tokens back (what was used is spent on its own, by `spend`). */
  async release(hold: TokenHold): Promise<void> {
    if (hold.tokens === 0) return;
    await Promise.all(hold.counters.map((c) => this.pipeline.store.increment(c.key, -hold.tokens, c.ttlMs)));
  }

  /** What every budget with a `limit` spend limit has used of it in the window around `now` (USD). */
  async spendStatus(limit: 'spendPerDay' | 'spendPerMonth', now: number): Promise<SpendStatus[]> {
    const window = windowOf(limit, now);
    const out: SpendStatus[] = [];
    for (const b of this.budgets) {
      const max = b.budget[limit];
      if (max === undefined) continue;
      const raw = (await this.pipeline.store.get<number>(this.counterKey(b, limit, window.start))) ?? 0;
      out.push({ scope: b.id, limit, max, used: raw / MICRO, window });
    }
    return out;
  }

  /** Adds one attempt's amounts to every budget that covers it; returns the limits it used up. */
  async spend(candidate: Candidate, ctx: RequestContext, amounts: Amounts): Promise<Exhaustion[]> {
    const reached: Exhaustion[] = [];
    const now = this.pipeline.clock.now();
    for (const b of [...this.requestBudgets(ctx), ...this.candidateBudgets(candidate)]) {
      for (const limit of LIMIT_NAMES) {
        const max = b.budget[limit];
        if (max === undefined) continue;
        const by = limit === 'rpm' ? amounts.rpm : limit === 'tpm' ? amounts.tpm : Math.round(amounts.spend * MICRO);
        if (by <= 0) continue;
        const window = windowOf(limit, now);
        const ttl = window.end - now + 1000;
        const raw = await this.pipeline.store.increment(this.counterKey(b, limit, window.start), by, ttl);
        const scale = isSpend(limit) ? MICRO : 1;
        const used = raw / scale;
        const before = (raw - by) / scale;
        for (const level of this.thresholds) {
          if (before < level * max && used >= level * max) await this.announce(b, limit, level, used, max, window.start, ttl);
        }
        if (used >= max) reached.push({ scope: b.id, limit, used, max, resetsAt: window.end });
      }
    }
    return reached;
  }

  private async announce(b: ScopedBudget, limit: LimitName, level: number, used: number, max: number, windowStart: number, ttl: number): Promise<void> {
    const first = await this.pipeline.store.increment(`${this.prefix}:threshold:${b.id}:${limit}:${level}:${windowStart}`, 1, ttl);
    if (first === 1) this.pipeline.events.emit('quota:threshold', { scope: b.id, limit, level, used, max });
  }

  private counterKey(b: ScopedBudget, limit: LimitName, windowStart: number): string {
    return `${this.prefix}:used:${b.id}:${limit}:${windowStart}`;
  }
}

function isSpend(limit: LimitName): boolean {
  return limit === 'spendPerDay' || limit === 'spendPerMonth';
}

function tagMatches(tag: string, tags: Record<string, string>): boolean {
  const at = tag.indexOf('=');
  return tags[tag.slice(0, at)] === tag.slice(at + 1);
}

/** `spendPerDay $20.00 used of $20.00` / `rpm 10 of 10`. */
export function describeExhaustion(e: Exhaustion, now: number): string {
  const money = e.limit === 'spendPerDay' || e.limit === 'spendPerMonth';
  const fmt = (n: number) => (money ? `$${Number(n.toFixed(6))}` : String(Math.round(n)));
  const need = e.need === undefined ? '' : `, this request may use up to ${e.need}`;
  return `${e.scope} ${e.limit} used ${fmt(e.used)} of ${fmt(e.max)}${need} (resets in ${formatDuration(e.resetsAt - now)})`;
}
