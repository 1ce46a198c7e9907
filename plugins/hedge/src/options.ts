import { DEFAULT_MAX_CONTINUATIONS } from '@switchyard/core/internal';
import { z } from 'zod';

const hedgeSchema = z
  .object({
    /** Fixed delay before the hedge starts, or `p95`: the primary deployment's observed p95. */
    delayMs: z.union([z.number().int().positive(), z.literal('p95')]).default('p95'),
    /** Bounds for a p95-derived delay, and the delay used before enough samples exist. */
    minDelayMs: z.number().int().nonnegative().default(250),
    maxDelayMs: z.number().int().positive().default(10_000),
    fallbackDelayMs: z.number().int().positive().default(2_000),
    /** Samples needed before the p95 is trusted. */
    minSamples: z.number().int().positive().default(20),
  })
  .strict();

export const tierSchema = z
  .object({
    hedge: z.union([hedgeSchema, z.literal(false)]).default(false),
    /** When a request reaches its model's last-resort tier, start that tier's two best candidates at once. */
    raceLastTier: z.boolean().default(false),
    /** Continue a cut committed stream on a prefill-capable candidate (the core does by default; `false` turns it off). */
    continuation: z.boolean().optional(),
    /** How many candidates a continuation may try. */
    maxContinuations: z.number().int().positive().default(DEFAULT_MAX_CONTINUATIONS),
    /** Where streams commit: the first token (fast) or the end of the answer (complete). */
    commit: z.enum(['first-token', 'end']).default('first-token'),
  })
  .strict();

export const hedgeOptionsSchema = z
  .object({
    /** Options per tier (`request.switchyard.tier`); `*` applies to every request without its own tier entry. */
    tiers: z.record(z.string(), tierSchema).default({}),
  })
  .strict();

export type HedgeOptionsInput = z.input<typeof hedgeOptionsSchema>;
export type HedgeOptions = z.output<typeof hedgeOptionsSchema>;
export type TierOptions = z.output<typeof tierSchema>;
export type HedgeDelayOptions = z.output<typeof hedgeSchema>;

export function tierOptions(options: HedgeOptions, tier: string | undefined): TierOptions | undefined {
  return (tier !== undefined ? options.tiers[tier] : undefined) ?? options.tiers['*'];
}
