/** @switchyard/plugin-quota's words: pricing and usage services, its events. */
import { defineService, type AttemptOutcome, type Candidate, type CandidateRef, type ChatRequest, type Price } from '@switchyard/core';

export const QUOTA_PLUGIN = '@switchyard/plugin-quota';

/** A spend projection for the current UTC day or month (plugin-quota's forecast.ts). */
export interface SpendForecast {
  period: 'day' | 'month';
  /** First and last UTC day of the period. */
  from: string;
  until: string;
  /** Spent so far in the period, estimates included (USD). */
  spentUsd: number;
  /** At the period's pace so far, what it will have spent at its end. */
  projectedUsd: number;
  ratePerHourUsd: number;
  /** The spend budgets of that period: when each runs out at this pace (ISO time; null: not within the period). */
  budgets: { scope: string; limit: 'spendPerDay' | 'spendPerMonth'; maxUsd: number; spentUsd: number; projectedUsd: number; exhaustsAt: string | null }[];
}

/** The usage ledger's query side (the gateway's /switchyard/usage). */
export interface UsageQueryService {
  /** Totals for whole UTC days `since`..`until` (defaults: the last 30 days), grouped; with `forecast` its projection too. */
  answer(query: { since?: string | null; until?: string | null; groupBy?: string | null; forecast?: string | null }): Promise<unknown>;
  /** The spend projection of the current UTC day or month (`/status`). */
  forecast?(period: 'day' | 'month'): Promise<SpendForecast>;
  /** Waits for the usage log's pending appends. */
  flush(): Promise<void>;
}

/** What one attempt costs, as the usage ledger bills it (the budgets of other plugins spend the same amounts). */
export interface PricingService {
  /** USD per million tokens for a candidate (or an event's reference to one): its deployment's `price`, else the price table. */
  priceFor(candidate: Candidate | CandidateRef): Price | undefined;
  /**
   * The attempt's cost in USD: the vendor's reported usage, or the estimate of an attempt that
   * reached the vendor and failed without usage (`request` caps an elapsed-time estimate at its
   * `max_tokens`).
   */
  attemptCostUsd(outcome: AttemptOutcome, estimatedInputTokens: number, request?: ChatRequest): number;
}

/** Provided by @switchyard/plugin-quota when its ledger is on; the gateway's usage route asks it. */
export const USAGE = defineService<UsageQueryService>('switchyard.usage', { providedBy: QUOTA_PLUGIN });
/** Provided by @switchyard/plugin-quota: the price table and the ledger's bill of an attempt. */
export const PRICING = defineService<PricingService>('switchyard.pricing', { providedBy: QUOTA_PLUGIN });

/** A key was taken out of rotation for a while (parked: top-up or new key needed; resting / paced: rate limits). */
export interface KeyStateChange { endpoint: string; keyId: string; deployment: string; condition: 'parked' | 'resting' | 'paced'; until: number; reason: string }
export interface QuotaThreshold { scope: string; limit: string; level: number; used: number; max: number }
/** What an attempt was billed: the vendor's usage, or an estimate when it reported none. */
export interface UsageBilled { requestId: string; attempt: number; candidate: CandidateRef; costUsd: number; estimated: boolean; inputTokens: number; outputTokens: number; cachedTokens: number }
/**
 * A spend budget started (`exhausting`) or stopped being on course to run out before its
 * window ends, at the window's pace so far (the forecast): `exhaustsAt` when.
 */
export interface BudgetForecast { scope: string; limit: 'spendPerDay' | 'spendPerMonth'; maxUsd: number; spentUsd: number; projectedUsd: number; exhaustsAt?: number; windowEndsAt: number; exhausting: boolean }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    'key:state': [KeyStateChange];
    'quota:threshold': [QuotaThreshold];
    'usage:billed': [UsageBilled];
    'budget:forecast': [BudgetForecast];
  }
}
