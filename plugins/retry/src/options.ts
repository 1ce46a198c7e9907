/** Options of the retry plugin, validated when the plugin is created. */
import { z } from 'zod';
import { DEFAULT_BACKOFF } from './backoff.js';
import { DEFAULT_RETRY_BUDGET } from './retry-budget.js';

const ms = () => z.number().finite().min(0);

export const backoffSchema = z
  .object({
    jitter: z.enum(['full', 'decorrelated']).default(DEFAULT_BACKOFF.jitter),
    probeMinMs: ms().default(DEFAULT_BACKOFF.probeMinMs),
    probeMaxMs: ms().default(DEFAULT_BACKOFF.probeMaxMs),
    baseMs: z.number().finite().positive().default(DEFAULT_BACKOFF.baseMs),
    capMs: z.number().finite().positive().default(DEFAULT_BACKOFF.capMs),
  })
  .strict()
  .refine((b) => b.probeMinMs <= b.probeMaxMs, { message: 'probeMinMs must not exceed probeMaxMs', path: ['probeMinMs'] })
  .refine((b) => b.baseMs <= b.capMs, { message: 'baseMs must not exceed capMs', path: ['baseMs'] });

export const budgetSchema = z
  .object({
    ratio: z.number().finite().min(0).max(10).default(DEFAULT_RETRY_BUDGET.ratio),
    minRetries: z.number().int().min(0).default(DEFAULT_RETRY_BUDGET.minRetries),
    windowMs: z.number().int().min(100).max(600_000).default(DEFAULT_RETRY_BUDGET.windowMs),
    buckets: z.number().int().min(1).max(600).default(DEFAULT_RETRY_BUDGET.buckets),
  })
  .strict();

export const retryOptionsSchema = z
  .object({
    /** Attempts on one candidate, the first included (2 = one retry). */
    maxAttemptsPerCandidate: z.number().int().min(1).max(10).default(2),
    /** A Retry-After up to this long is waited out on the same candidate; longer fails over at once. */
    maxRetryAfterWaitMs: ms().default(5_000),
    /** Retry-After values above this are "not soon": fail over, cool down for this long at most. */
    maxCooldownMs: ms().default(300_000),
    /** Extra random wait on top of a Retry-After, as a share of it (never shorter than asked). */
    retryAfterJitter: z.number().finite().min(0).max(1).default(0.1),
    /** Cooldown after a 429 that named no wait. */
    rateLimitCooldownMs: ms().default(1_000),
    /** A key that failed (401/402/403, insufficient_quota) is skipped for this long. */
    keyFailureCooldownMs: ms().default(60_000),
    /** A key that keeps failing rests twice as long each time, up to this. */
    maxKeyFailureCooldownMs: ms().default(3_600_000),
    /** A deployment that answered 404 (model or deployment not found) is skipped for this long. */
    misconfiguredCooldownMs: ms().default(60_000),
    /** A retry is only started when this much time is left after its delay. */
    minAttemptMs: ms().default(500),
    backoff: backoffSchema.prefault({}),
    budget: budgetSchema.prefault({}),
  })
  .strict();

export type RetryOptions = z.output<typeof retryOptionsSchema>;
export type RetryOptionsInput = z.input<typeof retryOptionsSchema>;
