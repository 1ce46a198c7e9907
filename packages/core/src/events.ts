/** Typed events for observing a pipeline. Listeners cannot change results: hooks do that. */
// The named import: eventemitter3's types are CommonJS to TypeScript, so under `nodenext` a
// default import is the whole module object and `on` / `emit` vanish from the bus (TS2507).
import { EventEmitter } from 'eventemitter3';
import type { SwitchyardError } from './errors.js';
import type { AttemptOutcome, RequestOutcome } from './hooks.js';
import type { Candidate } from './types.js';

export interface SwitchyardEvents {
  'request:start': [{ requestId: string; model: string; stream: boolean }];
  'attempt:start': [{ requestId: string; attempt: number; candidate: Candidate }];
  'attempt:end': [AttemptOutcome & { requestId: string }];
  retry: [{ requestId: string; attempt: number; candidate: Candidate; delayMs: number; reason: string }];
  failover: [{ requestId: string; from: Candidate; to: Candidate; error: SwitchyardError }];
  'stream:commit': [{ requestId: string; candidate: Candidate; ttftMs: number }];
  'stream:malformed': [{ requestId: string; candidate: Candidate; data: string }];
  'breaker:open': [{ deployment: string; until: number; reason: string }];
  'breaker:half-open': [{ deployment: string }];
  'breaker:close': [{ deployment: string }];
  'health:change': [{ deployment: string; healthy: boolean; score: number }];
  'quota:threshold': [{ scope: string; limit: string; level: number; used: number; max: number }];
  degraded: [{ requestId: string; level: string }];
  'deployment:misconfigured': [{ deployment: string; error: SwitchyardError }];
  'request:end': [RequestOutcome & { requestId: string }];
  'plugin-error': [{ plugin: string; stage: string; error: unknown }];
  'config:reload': [{ ok: boolean; error?: SwitchyardError }];
  /** The pipeline is closing: stop timers, probes and background work. */
  'pipeline:close': [];
}

export type SwitchyardEventName = keyof SwitchyardEvents;

export class SwitchyardEventBus extends EventEmitter<SwitchyardEvents> {}
