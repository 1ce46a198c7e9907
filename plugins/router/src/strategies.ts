/**
 * The ordering strategies. Each returns every candidate it was given, best first: the rest of
 * the list are the fallbacks the core tries next.
 */
import type { Candidate, RandomSource, StateStore } from '@switchyard/core';
import { ratesForPrompt } from '@switchyard/core/internal';
import { p2c } from './p2c.js';
import { weightedOrder } from './weighted-pick.js';

/** Candidates grouped by priority (lowest number first), keeping the given order inside a tier. */
export function tiersOf(candidates: readonly Candidate[]): Candidate[][] {
  // The usual input is in priority order already (the configured order): one pass, no sort.
  const tiers: Candidate[][] = [];
  let last: Candidate[] | undefined;
  for (const c of candidates) {
    if (last && last[0].priority === c.priority) last.push(c);
    else if (!last || last[0].priority < c.priority) tiers.push((last = [c]));
    else return sortedTiers(candidates);
  }
  return tiers;
}

function sortedTiers(candidates: readonly Candidate[]): Candidate[][] {
  const byPriority = new Map<number, Candidate[]>();
  for (const c of candidates) {
    const tier = byPriority.get(c.priority);
    if (tier) tier.push(c);
    else byPriority.set(c.priority, [c]);
  }
  return [...byPriority.entries()].sort((a, b) => a[0] - b[0]).map(([, tier]) => tier);
}

const weightOf = (c: Candidate) => c.weight;

export function priorityWeighted(candidates: readonly Candidate[], random: RandomSource, weight: (c: Candidate) => number = weightOf): Candidate[] {
  const out: Candidate[] = [];
  for (const tier of tiersOf(candidates)) {
    if (tier.length === 1) out.push(tier[0]);
    else for (const c of weightedOrder(tier, weight, random)) out.push(c);
  }
  return out;
}

export async function roundRobin(candidates: readonly Candidate[], store: StateStore, model: string): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const tier of tiersOf(candidates)) {
    if (tier.length === 1) {
      out.push(tier[0]);
      continue;
    }
    const turn = await store.increment(`switchyard:router:rr:${model}:${tier[0].priority}`);
    const start = (turn - 1) % tier.length;
    out.push(...tier.slice(start), ...tier.slice(0, start));
  }
  return out;
}

/** P2C picks the first of each tier; the others follow by ascending load. */
export function leastLatency(candidates: readonly Candidate[], loadOf: (c: Candidate) => number, random: RandomSource): Candidate[] {
  return tiersOf(candidates).flatMap((tier) => {
    const first = p2c(tier, loadOf, random);
    if (!first) return [];
    const rest = tier.filter((c) => c !== first).sort((a, b) => loadOf(a) - loadOf(b));
    return [first, ...rest];
  });
}

export interface CostEstimate {
  inputTokens: number;
  outputTokens: number;
}

/** USD for the request on this deployment, or undefined when it has no price. */
export function requestCost(candidate: Candidate, tokens: CostEstimate): number | undefined {
  const price = candidate.deployment.price;
  if (!price) return undefined;
  const rates = ratesForPrompt(price, tokens.inputTokens);
  return (rates.input * tokens.inputTokens + rates.output * tokens.outputTokens) / 1_000_000;
}

/**
 * Trades price against quality across every tier; `tolerance` 0 wants the cheapest, 1 the best
 * regardless of cost. Both scores are ratios, so "slightly worse but ten times cheaper" is
 * visible even between two deployments: cheapness = cheapest cost / this cost, quality =
 * 1 / (1 + rank of the priority), the lowest priority number being rank 0. A deployment
 * without a price scores no cheapness: it never wins on cost by accident.
 */
export function costAware(candidates: readonly Candidate[], tolerance: number, tokens: CostEstimate): Candidate[] {
  if (candidates.length <= 1) return [...candidates];
  const costs = candidates.map((c) => requestCost(c, tokens));
  const known = costs.filter((c): c is number => c !== undefined);
  const cheapest = known.length ? Math.min(...known) : 0;
  const ranks = [...new Set(candidates.map((c) => c.priority))].sort((a, b) => a - b);
  const scored = candidates.map((candidate, index) => {
    const cost = costs[index];
    const cheapness = cost === undefined ? 0 : cost === 0 ? 1 : cheapest / cost;
    const quality = 1 / (1 + ranks.indexOf(candidate.priority));
    return { candidate, index, utility: tolerance * quality + (1 - tolerance) * cheapness };
  });
  scored.sort((a, b) => b.utility - a.utility || a.candidate.priority - b.candidate.priority || a.index - b.index);
  return scored.map((s) => s.candidate);
}
