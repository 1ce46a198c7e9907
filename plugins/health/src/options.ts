import { z } from 'zod';

const probeTiming = {
  /** Time between two probes of one deployment (ms). */
  intervalMs: z.number().int().positive(),
  /** Up to this much is added at random to each interval, so probes never synchronise (ms). */
  jitterMs: z.number().int().nonnegative().optional(),
  /** A probe slower than this fails (ms). */
  timeoutMs: z.number().int().positive(),
};

const answerCheck = z.union([
  /** The answer must contain this (case-insensitive). */
  z.string().min(1),
  /** The answer must match this regular expression. */
  z.object({ pattern: z.string().min(1), flags: z.string().optional() }).refine((p) => isRegExp(p.pattern, p.flags), { message: 'not a valid regular expression' }),
]);

function isRegExp(pattern: string, flags?: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

export const healthOptionsSchema = z
  .object({
    /** Length of the sliding success-rate window (ms). */
    windowMs: z.number().int().positive().default(60_000),
    /** Buckets the window is split into. */
    buckets: z.number().int().min(1).max(600).default(6),
    /** Samples a window needs before its score can mark a deployment unhealthy. */
    minSamples: z.number().int().min(1).default(5),
    /** A healthy deployment becomes unhealthy when its score drops below this… */
    unhealthyBelow: z.number().min(0).max(1).default(0.5),
    /** …and healthy again only once it rises above this (hysteresis). */
    healthyAbove: z.number().min(0).max(1).default(0.7),
    /** Latency (time to first token for streams) up to which a deployment scores full marks (ms). */
    latencyTargetMs: z.number().positive().default(10_000),
    /** How much slowness can cost the score (0 = latency is ignored, at most 1). */
    latencyWeight: z.number().min(0).max(1).default(0.5),
    /** A failure counts as at least this slow in the latency average, so fast failures never look fast (ms). */
    failurePenaltyMs: z.number().nonnegative().default(20_000),
    /** Smoothing of the latency average: the weight of the newest sample. */
    latencyAlpha: z.number().gt(0).max(1).default(0.3),
    /** A 429 counts as this much of a failure (it is throttling, not an outage). */
    rateLimitedWeight: z.number().min(0).max(1).default(0.5),
    /** With a store that has pub/sub (Redis): how long another instance's "unhealthy" stands without news. */
    sharedVerdictMs: z.number().int().positive().default(300_000),
    /** Unhealthy deployments: `demote` keeps them as last-resort fallbacks, `drop` removes them while a healthy one exists. */
    unhealthy: z.enum(['demote', 'drop']).default('demote'),
    /** A recovered deployment's share of first choices ramps up over this long (ms); 0 disables. */
    slowStartMs: z.number().int().nonnegative().default(30_000),
    /** Its admission probability right after recovery. */
    slowStartMinShare: z.number().min(0).max(1).default(0.1),
    /** An unhealthy deployment takes one live trial request after `baseEjectionMs × k` (k = ejections in a row)… */
    baseEjectionMs: z.number().int().positive().default(5_000),
    /** …at most this long; the count decays once it has stayed healthy this long (ms). */
    maxEjectionMs: z.number().int().positive().default(60_000),
    /** Random extra ejection time, as a share of the period. */
    ejectionJitter: z.number().min(0).max(1).default(0.1),
    /** A trial that has not answered by then lets another request try (ms). */
    trialLeaseMs: z.number().int().positive().default(30_000),
    /** When a breaker opens or health drops, connect to the next candidates ahead of need. */
    warmBackups: z
      .object({
        enabled: z.boolean().default(true),
        /** How many next candidates (distinct from the failing origin) to warm. */
        backups: z.number().int().min(1).max(10).default(2),
        /** Also run their reachability probe once (when the provider has one). */
        probe: z.boolean().default(false),
      })
      .strict()
      .default({ enabled: true, backups: 2, probe: false }),
    /** Active probes; each depth runs only when configured. */
    probes: z
      .object({
        /** The provider's cheap health request (`GET /models`). */
        reachability: z.object({ ...probeTiming, intervalMs: probeTiming.intervalMs.default(30_000), timeoutMs: probeTiming.timeoutMs.default(5_000) }).optional(),
        /** A real one-token chat completion. */
        completion: z
          .object({
            ...probeTiming,
            intervalMs: probeTiming.intervalMs.default(60_000),
            timeoutMs: probeTiming.timeoutMs.default(20_000),
            prompt: z.string().min(1).default('Reply with the single word: ok'),
            /** Reasoning models think before answering: give them enough tokens. */
            maxTokens: z.number().int().positive().default(1),
          })
          .optional(),
        /** A fixed prompt whose answer must contain a string or match a pattern. */
        quality: z
          .object({
            ...probeTiming,
            intervalMs: probeTiming.intervalMs.default(300_000),
            timeoutMs: probeTiming.timeoutMs.default(30_000),
            prompt: z.string().min(1),
            expect: answerCheck,
            maxTokens: z.number().int().positive().default(16),
          })
          .optional(),
      })
      .default({}),
  })
  .refine((o) => o.healthyAbove >= o.unhealthyBelow, { message: 'healthyAbove must be at least unhealthyBelow', path: ['healthyAbove'] })
  .refine((o) => o.baseEjectionMs <= o.maxEjectionMs, { message: 'baseEjectionMs must not exceed maxEjectionMs', path: ['baseEjectionMs'] });

export type HealthOptions = z.output<typeof healthOptionsSchema>;
export type HealthOptionsInput = z.input<typeof healthOptionsSchema>;
export type ProbeDepth = keyof HealthOptions['probes'];
export const PROBE_DEPTHS: readonly ProbeDepth[] = ['reachability', 'completion', 'quality'];
