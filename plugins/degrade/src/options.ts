import { z } from 'zod';

export const levelSchema = z.discriminatedUnion('type', [
  /** A cheaper or smaller model: a logical model, or `endpoint/model`. */
  z.object({ type: z.literal('model'), model: z.string().min(1) }).strict(),
  /** A model on a given endpoint (a local Ollama, vLLM…). */
  z.object({ type: z.literal('endpoint'), endpoint: z.string().min(1), model: z.string().min(1) }).strict(),
  /** The cache plugin's expired answer for the same request. */
  z.object({ type: z.literal('stale-cache') }).strict(),
  /** An operator-written answer for this question (the `curated` option's file). */
  z.object({ type: z.literal('curated') }).strict(),
  /**
   * The candidates again (the request's own model, or `model`) with a smaller output limit:
   * shorter answers finish before timeouts, and fit a context window or output cap the full
   * limit did not.
   */
  z.object({ type: z.literal('max-tokens'), maxTokens: z.number().int().positive(), model: z.string().min(1).optional() }).strict(),
  /** A fixed answer; with `queue: true` the request is also kept in `queueFile` for replay (answer now, the real one later). */
  z.object({ type: z.literal('canned'), text: z.string().min(1), queue: z.boolean().optional() }).strict(),
]);

const plan = z.array(levelSchema);

const ratio = z.number().gt(0).lt(1);

/** A service-level objective and what to do while it is missed. */
export const sloSchema = z
  .object({
    name: z.string().min(1),
    /** Measure the requests of a logical model: a success is an answer no degrade level gave. */
    model: z.string().min(1).optional(),
    /** Or measure the attempts on one deployment (`endpoint/model`). */
    deployment: z.string().min(1).optional(),
    /** The success ratio to keep, e.g. 0.95. */
    target: ratio,
    windowMs: z.number().int().positive().default(300_000),
    /** Samples in the window before the objective is judged at all. */
    minSamples: z.number().int().positive().default(20),
    /** Hysteresis: the ratio the probes must reach again to recover (default halfway from target to 1). */
    recoverAt: z.number().gt(0).max(1).optional(),
    /** Probe outcomes the recovery is judged on (the most recent ones). */
    recoverSamples: z.number().int().positive().default(10),
    /** The shortest time an objective stays breached. */
    minBreachMs: z.number().int().nonnegative().default(60_000),
    /** Share of affected requests that still take the normal path while breached, so recovery shows. */
    probeShare: z.number().gt(0).max(1).default(0.05),
    then: z
      .object({
        /** Levels served at once to the affected requests, without trying their candidates. */
        degrade: plan.min(1).optional(),
        /** Deployments (`endpoint/model`) or endpoints left out of routing. */
        exclude: z.array(z.string().min(1)).min(1).optional(),
        /** Only deployments of this priority or higher (the backup tiers) are routed to. */
        fromPriority: z.number().int().optional(),
        /** The classification tier of the affected requests (its router strategy, degrade plan, hedging). */
        tier: z.string().min(1).optional(),
      })
      .strict()
      .refine((t) => t.degrade || t.exclude || t.fromPriority !== undefined || t.tier, { message: 'name at least one of degrade, exclude, fromPriority, tier' }),
  })
  .strict()
  .refine((s) => (s.model === undefined) !== (s.deployment === undefined), { message: 'give exactly one of model and deployment', path: ['model'] })
  .refine((s) => s.recoverAt === undefined || s.recoverAt >= s.target, { message: 'recoverAt must be at least target', path: ['recoverAt'] });

export const degradeOptionsSchema = z
  .object({
    /** Levels for every request without a more specific plan. */
    levels: plan.default([]),
    /** Levels per logical model. */
    models: z.record(z.string().min(1), plan).default({}),
    /** Levels per tier (request.switchyard.tier / classification.tier); wins over `models`. */
    tiers: z.record(z.string().min(1), plan).default({}),
    /** JSON-lines file where requests that failed at every level (or got a queued canned answer) are kept for replay. */
    queueFile: z.string().min(1).optional(),
    /** Replays `queueFile` on the pipeline's clock: every `everyMs`, at most `maxPerRun` entries; answers appended to `out`. */
    replay: z
      .object({ everyMs: z.number().int().positive(), maxPerRun: z.number().int().positive().default(100), out: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** Operator-written answers (YAML or JSON file), matched on the last user turn; `first: true` answers before any vendor call. */
    curated: z
      .object({ file: z.string().min(1), match: z.enum(['normalized', 'exact']).default('normalized'), first: z.boolean().default(false) })
      .strict()
      .optional(),
    /** Objectives that switch on a degrade plan or a routing change while they are missed. */
    slo: z.array(sloSchema).default([]),
  })
  .strict()
  .refine((o) => !o.replay || o.queueFile, { message: 'replay needs queueFile', path: ['replay'] });

export type Level = z.output<typeof levelSchema>;
export type SloOptions = z.output<typeof sloSchema>;
export type DegradeOptions = z.output<typeof degradeOptionsSchema>;
export type DegradeOptionsInput = z.input<typeof degradeOptionsSchema>;
