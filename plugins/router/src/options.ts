import { z } from 'zod';

export const STRATEGIES = ['priority-weighted', 'round-robin', 'least-latency', 'cost-aware'] as const;
export type Strategy = (typeof STRATEGIES)[number];

const strategy = z.enum(STRATEGIES);

export const routerOptionsSchema = z.object({
  /** How candidates are ordered inside a tier (and across tiers for `cost-aware`). */
  strategy: strategy.default('priority-weighted'),
  /** Per classification tier (`request.switchyard.tier`): a different strategy. */
  tiers: z.record(z.string(), z.object({ strategy })).default({}),
  /** Remember the deployment that answered a conversation and prefer it while it is healthy. */
  sticky: z.boolean().default(false),
  /** How long a conversation stays pinned after its last answer (ms). */
  stickyTtlMs: z.number().int().positive().default(30 * 60_000),
  /** PeakEWMA decay time constant (ms). */
  latencyDecayMs: z.number().positive().default(10_000),
  /**
   * Latency assumed for a deployment without samples (ms). 0 (default) tries an unknown
   * deployment first, one request at a time, so it gets measured.
   */
  defaultRttMs: z.number().nonnegative().default(0),
  /** A failed attempt counts as at least this slow, so a fast failure never looks fast (ms). */
  failurePenaltyMs: z.number().nonnegative().default(5_000),
  /** Default `costTolerance` when the request gives none: 0 = cheapest, 1 = best quality. */
  costTolerance: z.number().min(0).max(1).default(0.5),
  /** Output tokens assumed for the cost estimate when the request sets no `max_tokens`. */
  expectedOutputTokens: z.number().int().nonnegative().default(500),
  /** Drop deployments whose `contextWindow` is smaller than the estimated prompt + max_tokens. */
  checkContextWindow: z.boolean().default(true),
  /** On a context-length failure, move a larger-context deployment to the front. */
  contextReroute: z.boolean().default(true),
});

export type RouterOptions = z.output<typeof routerOptionsSchema>;
export type RouterOptionsInput = z.input<typeof routerOptionsSchema>;
