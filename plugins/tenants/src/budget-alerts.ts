/**
 * Budget thresholds as events: `tenant:budget` when the spend of a key's or team's window
 * reaches its soft threshold (alert), its hard one (refused), or falls back below them (the
 * window rolled over, the budget was raised): the alerts plugin opens and resolves an incident
 * per scope from them. Each gateway announces the transitions it sees; the alerts plugin keeps
 * one incident per scope across gateways. The last level per scope is kept in the store as
 * well, so a gateway that never saw a scope fire can still resolve it in the next window.
 */
import { type TenantBudgetEvent } from '@switchyard/contracts';
import type { SwitchyardEventBus, StateStore } from '@switchyard/core';
import { fromMicros, toMicros } from './budget-windows.js';
import { hardLimitMicros, type ScopeSpend, type SpendScope } from './reservations.js';
import type { BudgetWindow } from './options.js';

interface Seen {
  window: string;
  level: TenantBudgetEvent['level'];
}

const SEEN_TTL_MS = 70 * 86_400_000;

export function levelOf(budget: BudgetWindow, micros: number): TenantBudgetEvent['level'] {
  if (micros >= hardLimitMicros(budget)) return 'hard';
  if (micros >= toMicros(budget.limitUsd * budget.soft)) return 'soft';
  return 'none';
}

export class BudgetAlerts {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly store: StateStore,
    private readonly prefix: string,
    private readonly events: () => SwitchyardEventBus,
    private readonly onError: (error: unknown) => void,
  ) {}

  private seenKey(s: SpendScope): string {
    return `${this.prefix}:budget-level:${s.scope}:${s.id}:${s.window.period}`;
  }

  /** Announces what changed in these spends; never throws. */
  observe(spends: readonly ScopeSpend[]): void {
    for (const spend of spends) this.check(spend).catch(this.onError);
  }

  private async check({ scope, micros }: ScopeSpend): Promise<void> {
    if (!scope.budget) return;
    const level = levelOf(scope.budget, micros);
    const key = this.seenKey(scope);
    let last = this.seen.get(key);
    if (!last) {
      // First look at this scope since start: what the fleet saw last.
      last = (await this.store.get<Seen>(key)) ?? { window: scope.window.id, level: 'none' };
      this.seen.set(key, last);
    }
    const lastLevel = last.window === scope.window.id ? last.level : 'none';
    const rolledOver = last.window !== scope.window.id && last.level !== 'none';
    if (level === lastLevel && !rolledOver) return;
    const now: Seen = { window: scope.window.id, level };
    this.seen.set(key, now);
    await this.store.set(key, now, SEEN_TTL_MS);
    // A new window resolves the old one's incident before the new one (if any) fires.
    if (rolledOver || (level === 'none' && lastLevel !== 'none')) this.emit(scope, 'none', micros);
    if (level !== 'none' && (rolledOver || level !== lastLevel)) this.emit(scope, level, micros);
  }

  private emit(scope: SpendScope, level: TenantBudgetEvent['level'], micros: number): void {
    const events = this.events();
    events.emit('tenant:budget', {
      scope: scope.scope,
      id: scope.id,
      name: scope.name,
      period: scope.window.period,
      window: scope.window.id,
      level,
      spentUsd: fromMicros(micros),
      limitUsd: scope.budget!.limitUsd,
    });
  }
}
