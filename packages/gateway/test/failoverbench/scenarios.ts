/**
 * The sixteen failoverbench v0.1 scenarios (S01–S16), their machine checks and the verdict
 * rule, written down from the public methodology (scenarios/catalogue.yaml, METHODOLOGY.md):
 *
 *   pass     the caller got the ideal outcome (the complete canonical answer; S13: a clean
 *            error) and every check is clean
 *   partial  rescued, but an advisory check failed (or S13 answered by routing around)
 *   safe     not rescued, but a bounded clean error and every required check clean
 *   fail     a hang, a truncated answer presented as success, or a required check failed
 *
 * Every scenario is one streamed request (`stream_options.include_usage`) for the primary
 * model with one fallback; S15 is a sequence of requests across an outage. After each
 * scenario a healthy request (`fb-ok`, 10 s limit) must succeed (`alive_after`).
 *
 * | id  | fault (primary)                                   | checks (required unless marked advisory)                       |
 * |-----|---------------------------------------------------|----------------------------------------------------------------|
 * | S01 | 429 with Retry-After: 2 once                      | ≥2 primary attempts (adv), first gap ≥1.8 s (adv), ≤2 in 1.5 s |
 * | S02 | 429 on every attempt, no Retry-After              | ≤4 primary attempts in 3 s, ≤6 primary attempts, no hang       |
 * | S03 | 500 once                                          | no hang, ≥2 primary attempts (adv)                             |
 * | S04 | 503 on every attempt                              | ≤6 primary attempts, no hang                                   |
 * | S05 | TCP reset before headers once                     | no hang                                                        |
 * | S06 | accepts and never answers (noResponseS)           | ≤100 s, no hang, ≤1 primary attempt (adv)                      |
 * | S07 | first token after slowTtftS                       | no hang, ≤15 s (adv)                                           |
 * | S08 | stream cut after 40 of 60 tokens, no terminator   | no truncated success, no hang                                  |
 * | S09 | stream stalls after 20 tokens for stallS, closes  | ≤45 s, no truncated success, alive after, no hang              |
 * | S10 | the tenth SSE event is invalid JSON               | alive after, no truncated success, no hang, complete (adv)     |
 * | S11 | complete stream without `data: [DONE]`            | ≤8 s, usage present (adv)                                      |
 * | S12 | 400 context_length_exceeded on every attempt      | exactly 1 primary attempt, no hang                             |
 * | S13 | 400 content_policy_violation (ideal: clean error) | exactly 1 primary attempt, no hang                             |
 * | S14 | as S08; the fallback rejects any assistant prefill| the prefill 400 is not the final error, no truncated success   |
 * | S15 | 503 for flapDownS after reset, then healthy       | no hang, every request during the outage answered, primary     |
 * |     | (full: 20 requests 4 s apart; shortened: 10, 1.2 s)| used again ≤30 s after it recovered                           |
 * | S16 | 503 on every attempt                              | response.model names the fallback, usage (adv), ≤6 primary     |
 */
export type Severity = 'required' | 'advisory';

export interface Metrics {
  outcome: 'success' | 'error' | 'hang';
  complete: boolean;
  contentWords: number;
  error?: string;
  elapsedS: number;
  reportedModel?: string;
  usage?: unknown;
  attemptsPrimary: number;
  attemptsFallback: number;
  primaryTimes: number[];
  firstGapS?: number;
  prefillRejections: number;
  aliveAfter: boolean;
  sequence?: { hangs: number; requestsDuringDown: number; servedDuringDown: number; primaryAttemptsDuringDown: number; recoveredAfterS?: number };
}

export interface Check {
  id: string;
  severity: Severity;
  /** Never affects the verdict. */
  informational?: boolean;
  test(m: Metrics): boolean;
}

export interface Scenario {
  id: string;
  title: string;
  model: string;
  fallback: string;
  ideal: 'success' | 'error';
  maxWallS: number;
  sequence?: { full: { count: number; intervalS: number; perRequestMaxWallS: number }; shortened: { count: number; intervalS: number; perRequestMaxWallS: number } };
  checks: Check[];
}

const req = (id: string, test: Check['test']): Check => ({ id, severity: 'required', test });
const adv = (id: string, test: Check['test']): Check => ({ id, severity: 'advisory', test });
const noHang = req('no_hang', (m) => m.outcome !== 'hang');
const noTruncatedSuccess = (id = 'no_truncated_success') => req(id, (m) => !(m.outcome === 'success' && !m.complete));
const within = (m: Metrics, windowS: number) => (m.primaryTimes.length ? m.primaryTimes.filter((t) => t - m.primaryTimes[0] < windowS).length : 0);
const wallMax = (s: number) => (m: Metrics) => m.outcome !== 'hang' && m.elapsedS <= s;

export const SCENARIOS: Scenario[] = [
  { id: 'S01', title: '429 with Retry-After', model: 'fb-s01-429-retry-after', fallback: 'fb-ok', ideal: 'success', maxWallS: 20, checks: [adv('retried', (m) => m.attemptsPrimary >= 2), adv('retry_after_honoured', (m) => (m.firstGapS ?? -1) >= 1.8), req('no_hammer', (m) => within(m, 1.5) <= 2)] },
  { id: 'S02', title: '429 without Retry-After, persistent', model: 'fb-s02-429-persistent', fallback: 'fb-ok', ideal: 'success', maxWallS: 40, checks: [req('no_hammer', (m) => within(m, 3) <= 4), req('bounded_attempts', (m) => m.attemptsPrimary <= 6), noHang] },
  { id: 'S03', title: '500 once, then healthy', model: 'fb-s03-500-then-200', fallback: 'fb-ok', ideal: 'success', maxWallS: 20, checks: [noHang, adv('same_provider_retry', (m) => m.attemptsPrimary >= 2)] },
  { id: 'S04', title: '503 persistent', model: 'fb-s04-503-persistent', fallback: 'fb-ok', ideal: 'success', maxWallS: 40, checks: [req('bounded_attempts', (m) => m.attemptsPrimary <= 6), noHang] },
  { id: 'S05', title: 'TCP reset before headers', model: 'fb-s05-reset', fallback: 'fb-ok', ideal: 'success', maxWallS: 20, checks: [noHang] },
  { id: 'S06', title: 'No response at all', model: 'fb-s06-no-response', fallback: 'fb-ok', ideal: 'success', maxWallS: 130, checks: [req('within_budget', wallMax(100)), noHang, adv('silent_route_not_retried', (m) => m.attemptsPrimary <= 1)] },
  { id: 'S07', title: 'Slow first token', model: 'fb-s07-slow-ttft', fallback: 'fb-ok', ideal: 'success', maxWallS: 60, checks: [noHang, adv('ttft_limit', wallMax(15))] },
  { id: 'S08', title: 'Stream cut mid-answer', model: 'fb-s08-stream-cut', fallback: 'fb-ok', ideal: 'success', maxWallS: 40, checks: [noTruncatedSuccess(), noHang] },
  { id: 'S09', title: 'Stream stalls', model: 'fb-s09-stream-stall', fallback: 'fb-ok', ideal: 'success', maxWallS: 70, checks: [req('bounded', wallMax(45)), noTruncatedSuccess(), req('alive_after', (m) => m.aliveAfter), noHang] },
  { id: 'S10', title: 'Malformed chunk in the stream', model: 'fb-s10-malformed-chunk', fallback: 'fb-ok', ideal: 'success', maxWallS: 30, checks: [req('alive_after', (m) => m.aliveAfter), noTruncatedSuccess('no_garbage'), noHang, adv('recovered_in_place', (m) => m.outcome === 'success' && m.complete)] },
  { id: 'S11', title: 'Stream ends without [DONE]', model: 'fb-s11-no-done', fallback: 'fb-ok', ideal: 'success', maxWallS: 30, checks: [req('prompt_finalise', wallMax(8)), adv('usage_reported', (m) => Boolean(m.usage))] },
  { id: 'S12', title: 'Context length exceeded', model: 'fb-s12-context-length', fallback: 'fb-ok', ideal: 'success', maxWallS: 20, checks: [req('no_same_model_retry', (m) => m.attemptsPrimary === 1), noHang] },
  { id: 'S13', title: 'Content-filter rejection', model: 'fb-s13-content-filter', fallback: 'fb-ok', ideal: 'error', maxWallS: 20, checks: [req('no_same_model_retry', (m) => m.attemptsPrimary === 1), noHang, { id: 'fallback_attempted', severity: 'advisory', informational: true, test: (m) => m.attemptsFallback >= 1 }] },
  { id: 'S14', title: 'Fallback target rejects prefill', model: 'fb-s14-stream-cut', fallback: 'fb-ok-noprefill', ideal: 'success', maxWallS: 40, checks: [req('no_prefill_masking', (m) => !(m.outcome === 'error' && m.prefillRejections > 0)), noTruncatedSuccess()] },
  {
    id: 'S15',
    title: 'Primary flaps: down, then healthy',
    model: 'fb-s15-flap',
    fallback: 'fb-ok',
    ideal: 'success',
    maxWallS: 200,
    sequence: { full: { count: 20, intervalS: 4, perRequestMaxWallS: 30 }, shortened: { count: 10, intervalS: 1.2, perRequestMaxWallS: 10 } },
    checks: [
      req('no_hang', (m) => m.sequence!.hangs === 0),
      req('served_during_outage', (m) => m.sequence!.requestsDuringDown > 0 && m.sequence!.servedDuringDown === m.sequence!.requestsDuringDown),
      req('recovered', (m) => m.sequence!.recoveredAfterS !== undefined && m.sequence!.recoveredAfterS <= 30),
      { id: 'probe_discipline', severity: 'advisory', informational: true, test: (m) => m.sequence!.primaryAttemptsDuringDown <= m.sequence!.requestsDuringDown },
    ],
  },
  { id: 'S16', title: 'Fail-over accounting', model: 'fb-s16-503-persistent', fallback: 'fb-ok', ideal: 'success', maxWallS: 40, checks: [req('reports_fallback_model', (m) => m.attemptsFallback === 0 || (m.reportedModel ?? '').includes('fb-ok')), adv('usage_present', (m) => Boolean(m.usage)), req('bounded_attempts', (m) => m.attemptsPrimary <= 6)] },
];

export type Verdict = 'pass' | 'partial' | 'safe' | 'fail';

export interface ScoredCheck {
  id: string;
  status: 'pass' | 'fail' | 'info';
  severity: Severity;
}

export function scoreChecks(scenario: Scenario, m: Metrics): ScoredCheck[] {
  return scenario.checks.map((c) => ({ id: c.id, severity: c.severity, status: c.test(m) ? 'pass' : c.informational ? 'info' : 'fail' }));
}

export function verdictFor(scenario: Scenario, checks: ScoredCheck[], m: Metrics): { verdict: Verdict; reason: string } {
  if (m.outcome === 'hang') return { verdict: 'fail', reason: 'hang' };
  if (m.outcome === 'success' && !m.complete && scenario.ideal === 'success') return { verdict: 'fail', reason: 'truncated answer presented as success' };
  const failedRequired = checks.filter((c) => c.status === 'fail' && c.severity === 'required').map((c) => c.id);
  if (failedRequired.length) return { verdict: 'fail', reason: `failed: ${failedRequired.join(', ')}` };
  const failedAdvisory = checks.filter((c) => c.status === 'fail' && c.severity === 'advisory').map((c) => c.id);
  let rescued: boolean;
  if (scenario.ideal === 'success') rescued = m.outcome === 'success' && m.complete;
  else {
    if (m.outcome === 'success') return { verdict: 'partial', reason: 'answered by routing around the rejection' };
    rescued = m.outcome === 'error';
  }
  if (rescued) return failedAdvisory.length ? { verdict: 'partial', reason: `rescued; advisory: ${failedAdvisory.join(', ')}` } : { verdict: 'pass', reason: 'rescued' };
  return { verdict: 'safe', reason: `not rescued, clean error: ${String(m.error).slice(0, 80)}` };
}
