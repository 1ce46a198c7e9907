import { z } from 'zod';

export const levelSchema = z.discriminatedUnion('type', [
  /** A cheaper or smaller model: a logical model, or `endpoint/model`. */
  z.object({ type: z.literal('model'), model: z.string().min(1) }).strict(),
  /** A model on a given endpoint (a local Ollama, vLLM…). */
  z.object({ type: z.literal('endpoint'), endpoint: z.string().min(1), model: z.string().min(1) }).strict(),
  /** The cache plugin's expired answer for the same request. */
  z.object({ type: z.literal('stale-cache') }).strict(),
  /** A fixed answer. */
  z.object({ type: z.literal('canned'), text: z.string().min(1) }).strict(),
]);

const plan = z.array(levelSchema);

export const degradeOptionsSchema = z
  .object({
    /** Levels for every request without a more specific plan. */
    levels: plan.default([]),
    /** Levels per logical model. */
    models: z.record(z.string().min(1), plan).default({}),
    /** Levels per tier (request.switchyard.tier / classification.tier); wins over `models`. */
    tiers: z.record(z.string().min(1), plan).default({}),
    /** JSON-lines file where requests that failed at every level are kept for replay. */
    queueFile: z.string().min(1).optional(),
  })
  .strict();

export type Level = z.output<typeof levelSchema>;
export type DegradeOptions = z.output<typeof degradeOptionsSchema>;
export type DegradeOptionsInput = z.input<typeof degradeOptionsSchema>;
