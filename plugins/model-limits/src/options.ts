import { z } from 'zod';
import { modelLimitsSchema } from '@switchyard/core/internal';

export const modelLimitsOptionsSchema = z
  .object({
    /** Check parameter values against each deployment's limits before sending. */
    checkParameters: z.boolean().default(true),
    /** Use the built-in presets per provider id for limits a deployment does not declare. */
    presets: z.boolean().default(true),
    /** Limits per provider id, over the presets and under a deployment's own `limits`. */
    providers: z.record(z.string().min(1), modelLimitsSchema).default({}),
    /** Shorten prompts too long for a deployment's `contextWindow` (oldest turns first) instead of skipping it. */
    truncate: z.boolean().default(false),
    /** Output tokens kept free in the window when the request sets no `max_tokens`. */
    reserveOutputTokens: z.number().int().nonnegative().default(1024),
    /** Share of the window left unused: the prompt estimate (characters / 4) is rough. */
    safetyMargin: z.number().min(0).lt(1).default(0.1),
  })
  .strict();

export type ModelLimitsOptions = z.output<typeof modelLimitsOptionsSchema>;
export type ModelLimitsOptionsInput = z.input<typeof modelLimitsOptionsSchema>;
