/**
 * What events and logs say about a candidate: who it is (`endpoint#index`, deployment, model),
 * never its key. A `Candidate` carries the secret for the provider codec (`apiKey`,
 * `endpoint.apiKey`); a payload that leaves the request (an event, a log line, a relayed
 * message) carries this reference instead.
 */
import type { AttemptOutcome } from './outcomes.js';
import type { Candidate, DeploymentConfig } from './types.js';

/** Marks a reference, so a full `Candidate` (with its key) cannot be passed where a reference is expected. */
export const CANDIDATE_REF = Symbol.for('switchyard.candidate-ref');

export interface CandidateRef {
  readonly [CANDIDATE_REF]: true;
  readonly id: string;
  /** `endpoint/model`. */
  readonly deploymentId: string;
  /** The endpoint by name only: its config holds the key. */
  readonly endpoint: { readonly name: string };
  readonly deployment: DeploymentConfig;
  readonly provider: string;
  readonly model: string;
  readonly keyIndex: number;
  /** The key's safe label (`endpoint#index` unless the endpoint names its keys). */
  readonly keyId: string;
  readonly priority: number;
  readonly degradeLevel?: string;
}

/** An attempt's outcome as events and records carry it: the candidate by reference (and no `endedAt`, a reading of the pipeline's clock for its taps). */
export type AttemptRecord = Omit<AttemptOutcome, 'candidate' | 'endedAt'> & { candidate: CandidateRef };

// One reference per candidate object: candidates are built once per config and reused.
const refs = new WeakMap<Candidate, CandidateRef>();

export function candidateRef(candidate: Candidate): CandidateRef {
  let ref = refs.get(candidate);
  if (!ref) {
    const { id, deploymentId, endpoint, deployment, provider, model, keyIndex, keyId, priority, degradeLevel } = candidate;
    ref = Object.freeze({ [CANDIDATE_REF]: true as const, id, deploymentId, endpoint: Object.freeze({ name: endpoint.name }), deployment, provider, model, keyIndex, keyId, priority, ...(degradeLevel === undefined ? {} : { degradeLevel }) });
    refs.set(candidate, ref);
  }
  return ref;
}

/** Every field of `T`, optional ones included: a literal of this type names each, so a field added to `T` fails to compile where it is copied. */
type EveryField<T> = { [K in keyof Required<T>]: T[K] };

/**
 * An attempt's record, field by field: a spread copy of the outcome would carry what the record
 * leaves out, and the record with `requestId` added to a spread copy took V8's slow clone
 * (1–1.4 µs against 0.04; copy-fields.ts).
 */
export function attemptRecord(outcome: AttemptOutcome): AttemptRecord {
  const record: EveryField<AttemptRecord> = {
    attempt: outcome.attempt,
    candidate: candidateRef(outcome.candidate),
    ok: outcome.ok,
    outcome: outcome.outcome,
    error: outcome.error,
    latencyMs: outcome.latencyMs,
    ttftMs: outcome.ttftMs,
    usage: outcome.usage,
    headers: outcome.headers,
    phase: outcome.phase,
    stream: outcome.stream,
    initiator: outcome.initiator,
    headersReceived: outcome.headersReceived,
    requestSent: outcome.requestSent,
    outputChars: outcome.outputChars,
  };
  return record;
}

/** An attempt's `attempt:end` payload: its record and the request's id. */
export function attemptEndRecord(outcome: AttemptOutcome, requestId: string): AttemptRecord & { requestId: string } {
  const record = attemptRecord(outcome) as AttemptRecord & { requestId: string };
  record.requestId = requestId;
  return record;
}
