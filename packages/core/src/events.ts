/** Typed events for observing a pipeline. Listeners cannot change results: hooks do that. */
// The named import: eventemitter3's types are CommonJS to TypeScript, so under `nodenext` a
// default import is the whole module object and `on` / `emit` vanish from the bus (TS2507).
import { EventEmitter } from 'eventemitter3';
import type { SwitchyardError } from './errors.js';
import type { AttemptOutcome, RequestOutcome } from './outcomes.js';
import type { AccountBalance } from './provider.js';
import type { Candidate } from './types.js';
import type { CallerIdentity } from './caller.js';

export interface SwitchyardEvents {
  'request:start': [{ requestId: string; model: string; stream: boolean }];
  'attempt:start': [{ requestId: string; attempt: number; candidate: Candidate }];
  'attempt:end': [AttemptOutcome & { requestId: string }];
  /** A failed attempt and what the retry stage made of it: the line an operator reads first. */
  'attempt:failed': [AttemptFailure];
  retry: [{ requestId: string; attempt: number; candidate: Candidate; delayMs: number; reason: string }];
  failover: [{ requestId: string; from: Candidate; to: Candidate; error: SwitchyardError }];
  'stream:commit': [{ requestId: string; candidate: Candidate; ttftMs: number }];
  'stream:malformed': [{ requestId: string; candidate: Candidate; data: string }];
  /** `remote`: the transition happened on another instance sharing the store (relayed by pub/sub). */
  'breaker:open': [{ deployment: string; until: number; reason: string; remote?: boolean }];
  'breaker:half-open': [{ deployment: string; remote?: boolean }];
  'breaker:close': [{ deployment: string; remote?: boolean }];
  'health:change': [{ deployment: string; healthy: boolean; score: number; remote?: boolean }];
  /** A key was taken out of rotation for a while (parked: top-up or new key needed; resting / paced: rate limits). */
  'key:state': [{ endpoint: string; keyId: string; deployment: string; condition: 'parked' | 'resting' | 'paced'; until: number; reason: string }];
  'quota:threshold': [{ scope: string; limit: string; level: number; used: number; max: number }];
  degraded: [{ requestId: string; level: string }];
  /** A response-cache lookup: a fresh hit, a miss, or an expired answer served because every candidate failed. */
  'cache:lookup': [{ requestId: string; result: 'hit' | 'miss' | 'stale' }];
  'deployment:misconfigured': [{ deployment: string; error: SwitchyardError }];
  'request:end': [RequestOutcome & { requestId: string; tier?: string; caller?: CallerIdentity }];
  /** The host (the gateway) refused a request before it reached the pipeline: load shed. */
  'request:shed': [{ inFlight: number; limit: number }];
  'plugin-error': [{ plugin: string; stage: string; error: unknown }];
  'config:reload': [{ ok: boolean; error?: SwitchyardError }];
  /** The pipeline is closing: stop timers, probes and background work. */
  'pipeline:close': [];
  /** A quality probe's verdict on a deployment changed: answers fail their checks, or drift from the stored baseline. */
  'quality:change': [{ deployment: string; ok: boolean; failed: string[]; drift: QualityDrift[] }];
  /** An error pattern started or ended on a deployment: the same error again and again, or (nearly) every attempt timing out. */
  'health:pattern': [ErrorPattern];
  /** A logical model's traffic shares left (or came back within) their declared target's tolerance. */
  'traffic:drift': [{ model: string; drifting: boolean; windowMs: number; requests: number; shares: Record<string, { target: number; observed: number }> }];
  /** A service-level objective was missed (`breached`) or holds again (`ok`): its actions start or stop (plugin-degrade `slo`). */
  'slo:change': [SloChange];
  /** A scheduled replay of the durable queue ran (plugin-degrade `replay`). */
  'queue:replay': [{ file: string; replayed: number; failed: number; remaining: number }];
  /**
   * An idempotency key not guarded across instances: the shared store was down and
   * `idempotency.whenStoreUnavailable` is `local` (another gateway may call the vendor for it
   * too), or the answer could not be stored for later duplicates.
   */
  'idempotency:unshared': [{ requestId?: string; model: string; reason: string }];
  /** What an attempt was billed (plugin-quota): the vendor's usage, or an estimate when it reported none. */
  'usage:billed': [{ requestId: string; attempt: number; candidate: Candidate; costUsd: number; estimated: boolean; inputTokens: number; outputTokens: number; cachedTokens: number }];
  /**
   * A spend budget started (`exhausting`) or stopped being on course to run out before its
   * window ends, at the window's pace so far (plugin-quota's forecast): `exhaustsAt` when.
   */
  'budget:forecast': [{ scope: string; limit: 'spendPerDay' | 'spendPerMonth'; maxUsd: number; spentUsd: number; projectedUsd: number; exhaustsAt?: number; windowEndsAt: number; exhausting: boolean }];
  /**
   * A key's vendor account balance, polled (plugin-balance): `low` under its endpoint's
   * `minBalance` (or refused), `dry` when the vendor refuses calls; `error` when it could not be read.
   */
  'balance:update': [{ endpoint: string; keyId: string; provider: string; balances: AccountBalance[]; minBalance?: number; low: boolean; dry: boolean; checkedAt: number; error?: string }];
  /** A caller's budget (a gateway key's or its team's) crossed its soft or hard threshold, or fell back below them (`resolved`). */
  'tenant:budget': [TenantBudgetEvent];
}

/** How a quality run differs from the deployment's baseline. */
export interface QualityDrift {
  signal: 'model-changed' | 'answer-drift' | 'latency-shift' | 'length-shift';
  baseline: string | number;
  observed: string | number;
  message: string;
}

export interface ErrorPattern {
  deployment: string;
  /** `same-error`: one error (kind, code, status) again and again; `timeouts`: attempts keep timing out. */
  pattern: 'same-error' | 'timeouts';
  /** True when it starts, false when it ends. */
  active: boolean;
  kind: string;
  code: string;
  status?: number;
  /** Occurrences that made (or last kept) it a pattern. */
  count: number;
  /** Clock ms when it started. */
  since: number;
  message: string;
}

export interface SloChange {
  name: string;
  state: 'ok' | 'breached';
  /** What is measured: `model:chat` or `deployment:openai/gpt-4o`. */
  scope: string;
  /** Success ratio over the window when it changed, and the sample count. */
  successRate: number;
  samples: number;
  target: number;
  /** The ratio it must reach again to recover (hysteresis). */
  recoverAt: number;
  /** What it does while breached: `degrade:canned`, `exclude:openai/gpt-4o`, `tier:economy`. */
  actions: string[];
  /** Clock ms of the change. */
  at: number;
}

export interface TenantBudgetEvent {
  /** `key` (one gateway key's budget) or `team` (the budget its keys share). */
  scope: 'key' | 'team';
  /** The key id or the team name. */
  id: string;
  /** The key's name, or the team name. */
  name: string;
  period: 'day' | 'month';
  /** The window the spend is for: `2026-05-04` or `2026-05`. */
  window: string;
  /** The highest threshold the spend is at: `soft` (alert), `hard` (refused), `none` (below both: the incident resolves). */
  level: 'soft' | 'hard' | 'none';
  spentUsd: number;
  limitUsd: number;
}

export interface AttemptFailure {
  requestId: string;
  attempt: number;
  candidate: Candidate;
  error: SwitchyardError;
  /** `retry-same`: wait, then the same candidate; `next-candidate`: another one; `give-up`: none left or not worth it. */
  decision: 'retry-same' | 'next-candidate' | 'give-up';
  /** The wait before the next attempt (0 when there is none). */
  backoffMs: number;
  /** Retries of this candidate so far including this one (1 = the quick probe); 0 when not retried. */
  level: number;
  reason: string;
}

export type SwitchyardEventName = keyof SwitchyardEvents;

export class SwitchyardEventBus extends EventEmitter<SwitchyardEvents> {}

/** Listeners for some of the bus's events, by name. */
export type SwitchyardListeners = { [E in SwitchyardEventName]?: (...args: SwitchyardEvents[E]) => void };

/** Attaches several listeners at once; the returned function detaches them all. */
export function listenAll(events: SwitchyardEventBus, listeners: SwitchyardListeners): () => void {
  const entries = Object.entries(listeners) as [SwitchyardEventName, (...args: unknown[]) => void][];
  for (const [name, fn] of entries) events.on(name, fn as never);
  return () => {
    for (const [name, fn] of entries) events.off(name, fn as never);
  };
}
