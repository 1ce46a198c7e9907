/**
 * The `switchyard` object of a request: our own hints, parsed strictly. Tags are bounded string
 * pairs (they key usage reports and budgets), and per-request timeouts can only shorten the
 * configured limits: a caller can never switch a deadline off or stretch it.
 */
import { z } from 'zod';
import { configError } from './config-schema.js';
import { SwitchyardError } from './errors.js';
import type { AttemptTimeouts, SwitchyardRequestOptions } from './types.js';

export const HINT_LIMITS = Object.freeze({ maxTags: 16, maxTagKeyLength: 64, maxTagValueLength: 256, maxIdLength: 256 });

const duration = z.number().positive().finite();

export const switchyardHintsSchema = z
  .object({
    tier: z.string().min(1).max(HINT_LIMITS.maxIdLength),
    costTolerance: z.number().min(0).max(1),
    tags: z
      .record(z.string().min(1).max(HINT_LIMITS.maxTagKeyLength), z.string().max(HINT_LIMITS.maxTagValueLength))
      .refine((tags) => Object.keys(tags).length <= HINT_LIMITS.maxTags, `at most ${HINT_LIMITS.maxTags} tags`),
    cache: z.boolean(),
    conversationId: z.string().min(1).max(HINT_LIMITS.maxIdLength),
    timeouts: z.object({ headersMs: duration, firstTokenMs: duration, idleMs: duration, attemptMs: duration, firstByteMs: duration }).partial().strict(),
  })
  .partial()
  .strict();

export const INVALID_HINTS_CODE = 'SWITCHYARD_ERR_INVALID_HINTS';

/** Throws a coded `invalid-request` error (400) naming the bad hint. */
export function checkSwitchyardHints(value: unknown): asserts value is SwitchyardRequestOptions | undefined {
  if (value === undefined) return;
  const parsed = switchyardHintsSchema.safeParse(value);
  if (parsed.success) return;
  const described = configError(parsed.error, 'switchyard', switchyardHintsSchema);
  throw new SwitchyardError('invalid-request', described.message, { code: INVALID_HINTS_CODE, path: described.path, status: 400, retryable: false });
}

/** The limits an attempt runs with: the configured ones, shortened (never lengthened) by the request. */
export function attemptTimeouts(configured: AttemptTimeouts, requested: Partial<AttemptTimeouts> | undefined): AttemptTimeouts {
  if (!requested) return configured;
  const out = { ...configured };
  for (const key of Object.keys(out) as (keyof AttemptTimeouts)[]) {
    const ms = requested[key];
    if (typeof ms === 'number' && ms > 0 && ms < (out[key] ?? Number.POSITIVE_INFINITY)) out[key] = ms;
  }
  return out;
}
