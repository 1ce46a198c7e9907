/**
 * Typed events for observing a pipeline. Listeners cannot change results: hooks do that.
 * This map holds core's own events; a package adds its events by module augmentation from its
 * own source (`declare module '@switchyard/core' { interface SwitchyardEvents { 'acme:x': [X] } }`).
 * Payloads name candidates by `CandidateRef`, never with their keys.
 */
// The named import: eventemitter3's types are CommonJS to TypeScript, so under `nodenext` a
// default import is the whole module object and `on` / `emit` vanish from the bus (TS2507).
import { EventEmitter } from 'eventemitter3';
import type { AttemptRecord, CandidateRef } from './candidate-ref.js';
import type { SwitchyardError } from './errors.js';
import type { RequestOutcome } from './outcomes.js';
import type { CallerIdentity } from './caller.js';
import type { DroppedPart } from './types.js';

export interface SwitchyardEvents {
  'request:start': [{ requestId: string; model: string; stream: boolean }];
  'attempt:start': [{ requestId: string; attempt: number; candidate: CandidateRef }];
  'attempt:end': [AttemptRecord & { requestId: string }];
  /** A failed attempt and what the retry stage made of it: the line an operator reads first. */
  'attempt:failed': [AttemptFailure];
  retry: [{ requestId: string; attempt: number; candidate: CandidateRef; delayMs: number; reason: string }];
  failover: [{ requestId: string; from: CandidateRef; to: CandidateRef; error: SwitchyardError }];
  'stream:commit': [{ requestId: string; candidate: CandidateRef; ttftMs: number }];
  'stream:malformed': [{ requestId: string; candidate: CandidateRef; data: string }];
  degraded: [{ requestId: string; level: string }];
  'request:end': [RequestRecord];
  'plugin-error': [{ plugin: string; stage: string; error: unknown }];
  /** The pipeline is closing: stop timers, probes and background work. */
  'pipeline:close': [];
  /**
   * An idempotency key not guarded across instances: the shared store was down and
   * `idempotency.whenStoreUnavailable` is `local` (another gateway may call the vendor for it
   * too), or the answer could not be stored for later duplicates.
   */
  'idempotency:unshared': [{ requestId?: string; model: string; reason: string }];
  /**
   * A deployment left out before any attempt (expressible.ts): the client's request has a part
   * it cannot take. Core's word: core decides which candidates a request can reach.
   */
  'candidate:skipped': [{ requestId: string; model: string; candidate: CandidateRef; path: string; reason: string; feature: string }];
  /** The deployment that answered was sent without these parts of the client's request (translation.ts). */
  'field:dropped': [{ requestId: string; model: string; candidate: CandidateRef; dropped: readonly DroppedPart[] }];
}

/** A request's outcome as `request:end` carries it: its attempts name candidates by reference. */
export type RequestRecord = Omit<RequestOutcome, 'attempts'> & { attempts: AttemptRecord[]; requestId: string; tier?: string; caller?: CallerIdentity };

export interface AttemptFailure {
  requestId: string;
  attempt: number;
  candidate: CandidateRef;
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
