import { z } from 'zod';
import { isJsonSchema } from './answer-checks.js';

/**
 * Each probe depth's fields without defaults: the per-endpoint and per-deployment overrides
 * (`endpoints`, `deployments`) take any of them, and the merged result is parsed with the
 * defaults below (probe-plan.ts).
 */
const probeTiming = {
  /** Time between two probes of one deployment (ms). */
  intervalMs: z.number().int().positive(),
  /** Up to this much is added at random to each interval, so probes never synchronise (ms). */
  jitterMs: z.number().int().nonnegative(),
  /** A probe slower than this is aborted and fails (ms). */
  timeoutMs: z.number().int().positive(),
  /** A probe that answers, but slower than this, still counts as unhealthy (ms); at most `timeoutMs`. */
  maxLatencyMs: z.number().int().positive(),
};

const regexCheck = z
  .object({ pattern: z.string().min(1), flags: z.string().optional() })
  .strict()
  .refine((p) => isRegExp(p.pattern, p.flags), { message: 'not a valid regular expression' });

/** What a quality answer must be: one check. */
export const answerCheckSchema = z.union([
  /** The answer must contain this (case-insensitive). */
  z.string().min(1),
  /** The answer must match this regular expression (`{ pattern, flags }`, the older spelling of `regex`). */
  regexCheck,
  /** The whole answer, trimmed, must equal this (`ignoreCase` to compare case-insensitively). */
  z.object({ exact: z.string(), ignoreCase: z.boolean().optional() }).strict(),
  /** The answer must contain this (case-insensitive). */
  z.object({ contains: z.string().min(1) }).strict(),
  z
    .object({ regex: z.string().min(1), flags: z.string().optional() })
    .strict()
    .refine((p) => isRegExp(p.regex, p.flags), { message: 'not a valid regular expression' }),
  /** The answer must be JSON (a ```json fence is allowed) valid against this JSON Schema. */
  z
    .object({ jsonSchema: z.record(z.string(), z.unknown()) })
    .strict()
    .refine((c) => isJsonSchema(c.jsonSchema), { message: 'not a valid JSON Schema' }),
]);

export type AnswerCheck = z.output<typeof answerCheckSchema>;

function isRegExp(pattern: string, flags?: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

const qualityCaseSchema = z
  .object({
    /** Shown in events and alerts; defaults to `case N`. */
    name: z.string().min(1).optional(),
    prompt: z.string().min(1),
    expect: answerCheckSchema,
    /** Tokens for this case's answer (default: the probe's `maxTokens`). */
    maxTokens: z.number().int().positive().optional(),
  })
  .strict();

/** How a quality run is compared with the first passing run (the baseline). `false` turns a signal off. */
const baselineSchema = z
  .object({
    /** The answering `model` differs from the baseline's. */
    model: z.boolean().default(true),
    /** The answers' mean similarity to the baseline's (1 − edit distance / length) is below this. */
    minSimilarity: z.union([z.number().gt(0).max(1), z.literal(false)]).default(0.5),
    /** The run took more than this many times the baseline's time, or less than its inverse. */
    latencyFactor: z.union([z.number().gt(1), z.literal(false)]).default(4),
    /** The answers are more than this many times longer or shorter than the baseline's. */
    lengthFactor: z.union([z.number().gt(1), z.literal(false)]).default(2.5),
  })
  .strict();

/** Each depth's fields, all optional and without defaults: what an override may set. */
export const depthFields = {
  reachability: z
    .object({
      ...probeTiming,
      /** Appended to the endpoint's baseUrl like a vendor path; an absolute http(s) URL is used as is (vLLM's `/health` sits at the server root). */
      path: z
        .string()
        .min(1)
        .refine((p) => p.startsWith('/') || /^https?:\/\//.test(p), { message: 'expected a path starting with "/" or an http(s) URL' }),
    })
    .partial()
    .strict(),
  completion: z
    .object({
      ...probeTiming,
      prompt: z.string().min(1),
      /** Reasoning models think before answering: give them enough tokens. */
      maxTokens: z.number().int().positive(),
    })
    .partial()
    .strict(),
  quality: z
    .object({
      ...probeTiming,
      /** The test set: prompts with the check each answer must pass, run one after another. */
      cases: z.array(qualityCaseSchema).min(1).max(20),
      /** A one-case test set: `prompt` with `expect`. */
      prompt: z.string().min(1),
      expect: answerCheckSchema,
      /** Tokens per answer: few, the probe runs on every deployment. */
      maxTokens: z.number().int().positive(),
      baseline: z.union([baselineSchema, z.literal(false)]),
    })
    .partial()
    .strict(),
};

export type ProbeDepth = keyof typeof depthFields;
export const PROBE_DEPTHS: readonly ProbeDepth[] = ['reachability', 'completion', 'quality'];

const latencyWithinTimeout = (p: { maxLatencyMs?: number; timeoutMs: number }) => p.maxLatencyMs === undefined || p.maxLatencyMs <= p.timeoutMs;
const latencyIssue = { message: 'maxLatencyMs must not exceed timeoutMs (a slower probe is aborted first)', path: ['maxLatencyMs'] };

/** The fields with their defaults: what the plugin's `probes` and every merged override are parsed with. */
export const probeSchemas = {
  reachability: depthFields.reachability.transform((p) => ({ intervalMs: 30_000, timeoutMs: 5_000, ...p })).refine(latencyWithinTimeout, latencyIssue),
  completion: depthFields.completion.transform((p) => ({ intervalMs: 60_000, timeoutMs: 20_000, prompt: 'Reply with the single word: ok', maxTokens: 1, ...p })).refine(latencyWithinTimeout, latencyIssue),
  // Hourly by default: the test set costs tokens on every deployment.
  quality: depthFields.quality
    .transform((p) => ({ intervalMs: 3_600_000, timeoutMs: 30_000, maxTokens: 16, baseline: baselineSchema.parse({}) as BaselineSettings | false, ...p }))
    .refine(latencyWithinTimeout, latencyIssue)
    .refine((q) => q.cases !== undefined || (q.prompt !== undefined && q.expect !== undefined), { message: 'a quality probe needs `cases`, or `prompt` with `expect`', path: ['cases'] })
    .refine((q) => q.cases === undefined || (q.prompt === undefined && q.expect === undefined), { message: 'give either `cases` or `prompt` with `expect`, not both', path: ['prompt'] }),
};

export type BaselineSettings = z.output<typeof baselineSchema>;
export type QualityCase = z.output<typeof qualityCaseSchema>;
export interface DepthSettings {
  reachability: z.output<(typeof probeSchemas)['reachability']>;
  completion: z.output<(typeof probeSchemas)['completion']>;
  quality: z.output<(typeof probeSchemas)['quality']>;
}

/** An override of one depth: any of its fields, or `false` to turn it off there. */
const depthOverride = <D extends ProbeDepth>(depth: D) => z.union([z.literal(false), depthFields[depth]]);

const targetOverride = z
  .object({
    /** This target's latency with full marks in the score (ms). */
    latencyTargetMs: z.number().positive().optional(),
    /** Probe settings for this target, merged over the plugin's `probes`; an entry here turns a depth on for it alone. */
    probes: z.object({ reachability: depthOverride('reachability'), completion: depthOverride('completion'), quality: depthOverride('quality') }).partial().strict().optional(),
  })
  .strict();

export type TargetOverride = z.output<typeof targetOverride>;

const patternSettings = {
  sameError: z
    .union([
      z.literal(false),
      z
        .object({
          /** The same error (kind, code, status) this many times in a row… */
          inARow: z.number().int().min(2).default(5),
          /** …or this many times within `windowMs`. */
          inWindow: z.number().int().min(2).default(20),
          windowMs: z.number().int().positive().default(300_000),
        })
        .strict(),
    ])
    .default({ inARow: 5, inWindow: 20, windowMs: 300_000 }),
  timeouts: z
    .union([
      z.literal(false),
      z
        .object({
          /** This many timeouts (headers, first token, idle, whole attempt) in a row… */
          inARow: z.number().int().min(2).default(3),
          /** …or at least this share of the attempts within `windowMs`, with at least `minAttempts`. */
          share: z.number().gt(0).max(1).default(0.8),
          minAttempts: z.number().int().positive().default(5),
          windowMs: z.number().int().positive().default(60_000),
        })
        .strict(),
    ])
    .default({ inARow: 3, share: 0.8, minAttempts: 5, windowMs: 60_000 }),
};

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
    /** The EWMA error rate: a sample's weight halves every this long (ms). */
    errorHalfLifeMs: z.number().int().positive().default(10_000),
    /** The EWMA's share of the error rate the score uses; the windowed ratio has the rest (0 = window only, 1 = EWMA only). */
    errorEwmaWeight: z.number().min(0).max(1).default(0.5),
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
    /** Active probes; each depth runs only when configured (here, or for a target in `endpoints` / `deployments`). */
    probes: z
      .object({
        /** The provider's cheap health request (`GET /models`), or a GET of `path`. */
        reachability: probeSchemas.reachability.optional(),
        /** A real one-token chat completion. */
        completion: probeSchemas.completion.optional(),
        /** A small test set whose answers are checked and compared with a stored baseline. */
        quality: probeSchemas.quality.optional(),
      })
      .strict()
      .default({}),
    /** Per endpoint name: settings that override the ones above for its deployments. */
    endpoints: z.record(z.string(), targetOverride).default({}),
    /** Per deployment id (`endpoint/model`): settings that override the endpoint's and the ones above. */
    deployments: z.record(z.string(), targetOverride).default({}),
    /** Error patterns reported as signals of their own (`health:pattern`); `false` turns one off. */
    patterns: z.object(patternSettings).strict().prefault({}),
  })
  .refine((o) => o.healthyAbove >= o.unhealthyBelow, { message: 'healthyAbove must be at least unhealthyBelow', path: ['healthyAbove'] })
  .refine((o) => o.baseEjectionMs <= o.maxEjectionMs, { message: 'baseEjectionMs must not exceed maxEjectionMs', path: ['baseEjectionMs'] });

export type HealthOptions = z.output<typeof healthOptionsSchema>;
export type HealthOptionsInput = z.input<typeof healthOptionsSchema>;
export type PatternOptions = HealthOptions['patterns'];
