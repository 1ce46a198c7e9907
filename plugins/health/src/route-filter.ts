/**
 * The route filter: healthy deployments first (in the order given), then recovered ones that
 * slow start held back this time, then unhealthy ones least bad first. Never empty when the
 * input is not: under mass failure the least bad deployment still gets the request.
 */
import { REQUEST_SLOT } from '@switchyard/contracts';
import type { Candidate, RandomSource, RequestContext } from '@switchyard/core';
import type { HealthBook } from './health-monitor.js';

export function orderByHealth(candidates: Candidate[], book: HealthBook, random: RandomSource, now: number, unhealthy: 'demote' | 'drop', ctx: RequestContext): Candidate[] {
  const verdicts = new Map<string, { rank: 'admitted' | 'deferred' | 'unhealthy'; score: number }>();
  const verdict = (id: string) => {
    let v = verdicts.get(id);
    if (!v) {
      const health = book.assess(id, now);
      const share = health.admission(now);
      // Another instance's verdict (Redis) keeps it out; an unhealthy deployment whose ejection ended takes this request as its trial.
      const elsewhere = book.shared?.unhealthyScore(id, now);
      const rank = elsewhere !== undefined ? 'unhealthy' : !health.isHealthy() ? (book.takeTrial(id) ? 'admitted' : 'unhealthy') : share >= 1 || random() < share ? 'admitted' : 'deferred';
      verdicts.set(id, (v = { rank, score: Math.min(health.score(now), elsewhere ?? 1) }));
    }
    return v;
  };
  const admitted: Candidate[] = [];
  const deferred: Candidate[] = [];
  const sick: Candidate[] = [];
  for (const c of candidates) {
    const { rank } = verdict(c.deploymentId);
    (rank === 'admitted' ? admitted : rank === 'deferred' ? deferred : sick).push(c);
  }
  if (deferred.length === 0 && sick.length === 0) return candidates;
  // Stable: equal scores keep their configured order.
  sick.sort((a, b) => verdict(b.deploymentId).score - verdict(a.deploymentId).score);
  const lastResort = unhealthy === 'drop' && admitted.length + deferred.length > 0 ? [] : sick;
  markDemoted(ctx, [...deferred, ...lastResort]);
  return [...admitted, ...deferred, ...lastResort];
}

/**
 * Tells later route taps (the router) that these candidates are last resorts, so a strategy
 * that re-sorts by priority does not move them forward again. See the router's README.
 */
function markDemoted(ctx: RequestContext, candidates: Candidate[]): void {
  if (candidates.length === 0) return;
  let demoted = REQUEST_SLOT.demoted.get(ctx);
  if (!demoted) REQUEST_SLOT.demoted.set(ctx, (demoted = new Set()));
  for (const c of candidates) demoted.add(c.id);
}
