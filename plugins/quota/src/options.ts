/** The quota plugin's options, validated by zod when the plugin is created. */
import { z } from 'zod';

const nonNegative = z.number().nonnegative('prices cannot be negative');

export const priceOptionSchema = z.object({ input: nonNegative, output: nonNegative, cachedInput: nonNegative.optional() }).strict();

const limit = z.number().positive('a limit must be above 0');

/** A middle-of-the-road output speed of hosted models in 2025 (small ones write faster, reasoning ones slower). */
export const DEFAULT_OUTPUT_TOKENS_PER_SECOND = 50;

export const LIMIT_NAMES = ['rpm', 'tpm', 'spendPerDay', 'spendPerMonth'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export const SCOPE_NAMES = ['endpoint', 'key', 'model', 'tag'] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];

export const budgetSchema = z
  .object({
    endpoint: z.string().min(1).optional(),
    /** A key label: `endpoint#index` or one of the endpoint's `keyIds`. */
    key: z.string().min(1).optional(),
    /** A logical model. */
    model: z.string().min(1).optional(),
    /** A caller tag as `name=value` (request.switchyard.tags). */
    tag: z.string().regex(/^[^=]+=.*$/, 'expected "name=value"').optional(),
    /**
     * A tag budget counts the tags a gateway key (or its team) sets; tags a gateway client sends
     * in its own request are reported but spend this budget only when this is true (anyone with
     * a key could otherwise spend another team's tag budget). Calls without a caller (the library) always count.
     */
    clientTags: z.boolean().optional(),
    rpm: limit.optional(),
    tpm: limit.optional(),
    /** USD per UTC day. */
    spendPerDay: limit.optional(),
    /** USD per UTC calendar month. */
    spendPerMonth: limit.optional(),
  })
  .strict()
  .refine((b) => SCOPE_NAMES.filter((s) => b[s] !== undefined).length === 1, 'a budget needs exactly one of endpoint, key, model, tag')
  .refine((b) => b.clientTags === undefined || b.tag !== undefined, { message: 'clientTags applies to tag budgets only', path: ['clientTags'] })
  .refine((b) => LIMIT_NAMES.some((l) => b[l] !== undefined), 'a budget needs at least one of rpm, tpm, spendPerDay, spendPerMonth');

export const pacingSchema = z
  .object({
    /** Pace a key when `x-ratelimit-remaining-requests` is at or below this. */
    minRemainingRequests: z.number().int().nonnegative().default(1),
    /** Pace a key when `x-ratelimit-remaining-tokens` is at or below this. */
    minRemainingTokens: z.number().int().nonnegative().default(1000),
    /** `deprioritise`: paced keys go after the others; `hold`: they are skipped until the reset. */
    mode: z.enum(['deprioritise', 'hold']).default('deprioritise'),
    /** Pause when the vendor sent no reset header. */
    defaultResetMs: z.number().int().positive().default(1000),
    maxHoldMs: z.number().int().positive().default(60_000),
  })
  .strict();

export const quotaOptionsSchema = z
  .object({
    /** USD per million tokens by upstream model or `endpoint/model`; overrides the built-in table. */
    prices: z.record(z.string().min(1), priceOptionSchema).default({}),
    budgets: z.array(budgetSchema).default([]),
    /** Fractions of a limit at which `quota:threshold` fires, once per crossing per window. */
    thresholds: z.array(z.number().gt(0).lte(1)).default([0.8, 1]),
    /** How long a key rests after a 429 without a retry header. */
    rateLimitRestMs: z.number().int().positive().default(1000),
    /** Retry-After values above this are capped (treated as "not soon"). */
    maxRestMs: z.number().int().positive().default(300_000),
    /** How long a key is parked after 402 / insufficient_quota / 401 / 403. */
    keyParkMs: z.number().int().positive().default(3_600_000),
    /** Header-driven pacing; `false` turns it off. */
    pacing: z.union([z.literal(false), pacingSchema]).default(() => pacingSchema.parse({})),
    /**
     * The usage ledger: every attempt's usage and cost to a JSON-lines log (`log`, one file per
     * UTC day) and to day totals in the StateStore (what GET /switchyard/usage reports).
     */
    ledger: z
      .object({ log: z.string().min(1).optional() })
      .strict()
      .optional(),
    /**
     * Output speed for billing a call that timed out before the vendor's response headers: the
     * vendor wrote (and bills) about `outputTokensPerSecond` × the time it had. `deployments`
     * overrides it by `endpoint/model` or upstream model.
     */
    estimates: z
      .object({
        outputTokensPerSecond: z.number().positive().default(DEFAULT_OUTPUT_TOKENS_PER_SECOND),
        deployments: z.record(z.string().min(1), z.number().positive()).default({}),
      })
      .strict()
      .prefault({}),
    /**
     * Budget forecasts: every `everyMs` each spend budget's pace is projected to the end of its
     * window; `budget:forecast` fires when it is on course to run out (plugin-alerts:
     * `budget-forecast`), once `minElapsedShare` of the window has passed. `false` turns it off.
     */
    forecast: z
      .union([
        z.literal(false),
        z
          .object({ everyMs: z.number().int().positive().default(300_000), minElapsedShare: z.number().min(0).lt(1).default(0.05) })
          .strict(),
      ])
      .default(() => ({ everyMs: 300_000, minElapsedShare: 0.05 })),
    /**
     * How `tpm` budgets hold a request before its call: its upper bound of tokens (every input at
     * half a token per UTF-8 byte, an image at `imageTokens`, output from `max_tokens`, else the
     * deployment's `limits.maxOutputTokens`, else `reserveOutputTokens`, × `n`), settled to what
     * it used when it ends.
     */
    tokenBound: z
      .object({ reserveOutputTokens: z.number().int().min(0).default(1_024), imageTokens: z.number().int().min(0).default(2_500) })
      .strict()
      .prefault({}),
    /** Distinct `name=value` tags the usage report keeps; later ones are counted as `(other)`. */
    maxReportedTags: z.number().int().positive().default(1000),
    /** Key prefix in the StateStore (share one store between pipelines with different prefixes). */
    storePrefix: z.string().min(1).default('quota'),
  })
  .strict();

export type QuotaOptions = z.output<typeof quotaOptionsSchema>;
export type QuotaOptionsInput = z.input<typeof quotaOptionsSchema>;
export type Budget = z.output<typeof budgetSchema>;
export type PacingOptions = z.output<typeof pacingSchema>;
