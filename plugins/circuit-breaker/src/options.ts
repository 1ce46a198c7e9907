/** Options of the circuit-breaker plugin, validated when the plugin is created. */
import { z } from 'zod';
import { DEFAULT_BREAKER } from './state-machine.js';

export const breakerOptionsSchema = z
  .object({
    consecutiveFailures: z.number().int().min(1).default(DEFAULT_BREAKER.consecutiveFailures),
    failureRatio: z.number().finite().gt(0).max(1).default(DEFAULT_BREAKER.failureRatio),
    minThroughput: z.number().int().min(1).default(DEFAULT_BREAKER.minThroughput),
    windowMs: z.number().int().min(100).max(3_600_000).default(DEFAULT_BREAKER.windowMs),
    buckets: z.number().int().min(1).max(600).default(DEFAULT_BREAKER.buckets),
    baseOpenMs: z.number().finite().positive().default(DEFAULT_BREAKER.baseOpenMs),
    maxOpenMs: z.number().finite().positive().default(DEFAULT_BREAKER.maxOpenMs),
    openJitter: z.number().finite().min(0).max(1).default(DEFAULT_BREAKER.openJitter),
    /** Also open on `count` endpoint failures within `windowMs` (e.g. 5 in 2 minutes), successes in between or not. */
    failuresWithin: z.object({ count: z.number().int().min(1).max(1_000), windowMs: z.number().int().min(100).max(86_400_000) }).strict().optional(),
    /** A half-open probe that has not reported back by then lets another request probe. */
    probeLeaseMs: z.number().int().min(100).default(30_000),
  })
  .strict()
  .refine((o) => o.baseOpenMs <= o.maxOpenMs, { message: 'baseOpenMs must not exceed maxOpenMs', path: ['baseOpenMs'] });

export type BreakerPluginOptions = z.output<typeof breakerOptionsSchema>;
export type BreakerPluginOptionsInput = z.input<typeof breakerOptionsSchema>;
