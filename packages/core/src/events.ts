/** Typed events for observing a pipeline. Listeners cannot change results: hooks do that. */
// The named import: eventemitter3's types are CommonJS to TypeScript, so under `nodenext` a
// default import is the whole module object and `on` / `emit` vanish from the bus (TS2507).
import { EventEmitter } from 'eventemitter3';
import type { SwitchyardError } from './errors.js';
import type { AttemptOutcome, RequestOutcome } from './contract.js';
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
  /** A caller's budget (a gateway key's or its team's) crossed its soft or hard threshold, or fell back below them (`resolved`). */
  'tenant:budget': [TenantBudgetEvent];
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
