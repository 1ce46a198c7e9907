import { describe, expect, it } from 'vitest';
import { attemptEndRecord, attemptRecord, CANDIDATE_REF } from './candidate-ref.js';
import { SwitchyardError } from './errors.js';
import type { AttemptOutcome } from './outcomes.js';
import type { Candidate } from './types.js';

const candidate = {
  id: 'u0/m0#0',
  deploymentId: 'u0/m0',
  endpoint: { name: 'u0', apiKey: 'sk-secret-key-that-must-not-leak' },
  deployment: { endpoint: 'u0', model: 'm0' },
  provider: 'openai',
  model: 'm0',
  apiKey: 'sk-secret-key-that-must-not-leak',
  keyIndex: 0,
  keyId: 'u0#0',
  priority: 0,
} as unknown as Candidate;

/** Every field set, none undefined: what a copy that missed one would lose shows. */
const outcome: AttemptOutcome = {
  attempt: 2,
  candidate,
  ok: false,
  outcome: 'endpoint-failure',
  error: new SwitchyardError('server', 'boom'),
  latencyMs: 12,
  ttftMs: 5,
  usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  headers: { 'retry-after': '1' },
  phase: 'post-commit',
  stream: true,
  initiator: 'hedge',
  headersReceived: true,
  requestSent: true,
  outputChars: 40,
};

describe('attemptEndRecord', () => {
  it('is the attempt record with the request id: every field of the outcome, the candidate by reference', () => {
    const record = attemptEndRecord(outcome, 'req-1');
    expect(record).toStrictEqual({ ...attemptRecord(outcome), requestId: 'req-1' });
    expect(Object.keys(record).sort()).toEqual([...Object.keys(outcome), 'requestId'].sort());
    expect(record.candidate[CANDIDATE_REF]).toBe(true);
    expect(JSON.stringify(record)).not.toContain('sk-secret');
  });
});
