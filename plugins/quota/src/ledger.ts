/**
 * Cumulative usage accounting for the report: requests, failures, tokens and cost per
 * endpoint, key, deployment, logical model and caller tag. Held in memory per pipeline (the
 * budget windows, which decide things, live in the StateStore).
 */
import type { Candidate } from '@switchyard/core';
import type { TokenCounts } from './prices.js';

export interface UsageTotals {
  /** Successful attempts: completions the vendor delivered. */
  requests: number;
  /** Failed attempts (not billed as completions). */
  failures: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
}

export interface UsageReport {
  since: number;
  until: number;
  total: UsageTotals;
  byEndpoint: Record<string, UsageTotals>;
  byKey: Record<string, UsageTotals>;
  /** `endpoint/model`: the upstream model that answered. */
  byDeployment: Record<string, UsageTotals>;
  /** The logical model the caller asked for. */
  byModel: Record<string, UsageTotals>;
  /** `name=value` from request.switchyard.tags. */
  byTag: Record<string, UsageTotals>;
  /** Answers served without a vendor call. */
  cacheHits: number;
  degraded: Record<string, number>;
  /** Upstream models that answered without a known price (their cost counts as 0). */
  unpriced: string[];
}

export const DEFAULT_MAX_TAGS = 1000;
export const OTHER_TAG = '(other)';

export function emptyTotals(): UsageTotals {
  return { requests: 0, failures: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 };
}

export interface AttemptEntry {
  candidate: Candidate;
  model: string;
  tags: Record<string, string>;
  ok: boolean;
  /** False for cancelled attempts: their tokens are billed, but they are neither a request nor a failure. */
  counted: boolean;
  tokens: TokenCounts;
  costUsd: number;
  priced: boolean;
}

export class UsageLedger {
  private readonly total = emptyTotals();
  private readonly groups = { byEndpoint: new Map<string, UsageTotals>(), byKey: new Map<string, UsageTotals>(), byDeployment: new Map<string, UsageTotals>(), byModel: new Map<string, UsageTotals>(), byTag: new Map<string, UsageTotals>() };
  private readonly unpriced = new Set<string>();
  private readonly degraded = new Map<string, number>();
  private cacheHits = 0;

  /**
   * Tags come from callers: past `maxTags` distinct `name=value` pairs, new ones are counted
   * under `(other)`, so unique tag values cannot grow the report without bound.
   */
  constructor(
    private readonly since: number,
    private readonly maxTags = DEFAULT_MAX_TAGS,
  ) {}

  private tagKey(name: string, value: string): string {
    const key = `${name}=${value}`;
    return this.groups.byTag.has(key) || this.groups.byTag.size < this.maxTags ? key : OTHER_TAG;
  }

  addAttempt(entry: AttemptEntry): void {
    const { candidate } = entry;
    const targets = [
      this.total,
      bucket(this.groups.byEndpoint, candidate.endpoint.name),
      bucket(this.groups.byKey, candidate.keyId),
      bucket(this.groups.byDeployment, candidate.deploymentId),
      bucket(this.groups.byModel, entry.model),
      ...Object.entries(entry.tags).map(([k, v]) => bucket(this.groups.byTag, this.tagKey(k, String(v)))),
    ];
    for (const t of targets) {
      if (entry.counted) {
        if (entry.ok) t.requests += 1;
        else t.failures += 1;
      }
      t.inputTokens += entry.tokens.inputTokens;
      t.outputTokens += entry.tokens.outputTokens;
      t.cachedTokens += entry.tokens.cachedTokens;
      t.costUsd += entry.costUsd;
    }
    if (entry.ok && !entry.priced) this.unpriced.add(candidate.deploymentId);
  }

  addCacheHit(): void {
    this.cacheHits += 1;
  }

  addDegraded(level: string): void {
    this.degraded.set(level, (this.degraded.get(level) ?? 0) + 1);
  }

  report(until: number): UsageReport {
    const plain = (m: Map<string, UsageTotals>) => Object.fromEntries([...m].map(([k, v]) => [k, { ...v }]));
    return {
      since: this.since,
      until,
      total: { ...this.total },
      byEndpoint: plain(this.groups.byEndpoint),
      byKey: plain(this.groups.byKey),
      byDeployment: plain(this.groups.byDeployment),
      byModel: plain(this.groups.byModel),
      byTag: plain(this.groups.byTag),
      cacheHits: this.cacheHits,
      degraded: Object.fromEntries(this.degraded),
      unpriced: [...this.unpriced].sort(),
    };
  }
}

function bucket(map: Map<string, UsageTotals>, key: string): UsageTotals {
  let t = map.get(key);
  if (!t) map.set(key, (t = emptyTotals()));
  return t;
}
