import { z } from 'zod';

export const STRATEGIES = ['priority-weighted', 'round-robin', 'least-latency', 'cost-aware'] as const;
export type Strategy = (typeof STRATEGIES)[number];

const strategy = z.enum(STRATEGIES);

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a local time "HH:MM" (00:00–23:59)');

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const scheduleRuleSchema = z
  .object({
    /** Shown in errors and docs. */
    name: z.string().min(1),
    /** Local start (inclusive) and end (exclusive); the end may be earlier than the start (past midnight). */
    between: z.tuple([clockTime, clockTime]).refine(([a, b]) => a !== b, { message: 'start and end must differ' }),
    /** IANA time zone, e.g. Europe/Berlin (default UTC). */
    timeZone: z.string().refine(isTimeZone, { message: 'not a time zone this runtime knows (an IANA name like Europe/Berlin)' }).default('UTC'),
    /** Local days the window starts on (default every day). */
    days: z.array(z.enum(WEEKDAYS)).min(1).optional(),
    /** Logical models it applies to (default all). */
    models: z.array(z.string().min(1)).min(1).optional(),
    /** Classification tiers it applies to (`request.switchyard.tier`; default all). */
    tiers: z.array(z.string().min(1)).min(1).optional(),
    /** Deployment ids (`endpoint/model`) or endpoint names to try first, in this order, while the rule applies. */
    prefer: z.array(z.string().min(1)).min(1).optional(),
    /** Weights by deployment id for `priority-weighted` while the rule applies (others keep theirs). */
    weights: z.record(z.string(), z.number().nonnegative()).optional(),
    /** Another strategy while the rule applies. */
    strategy: z.enum(STRATEGIES).optional(),
  })
  .strict()
  .refine((r) => r.prefer !== undefined || r.weights !== undefined || r.strategy !== undefined, { message: 'a rule needs prefer, weights or strategy', path: ['prefer'] });

export type ScheduleRule = z.output<typeof scheduleRuleSchema>;


const trafficTargetSchema = z
  .object({
    /** Share of answered requests per deployment id (`endpoint/model`), adding up to 1: `{ "openai/gpt-4o": 0.8, … }`. */
    shares: z.record(z.string(), z.number().min(0).max(1)).refine((s) => Math.abs(Object.values(s).reduce((a, b) => a + b, 0) - 1) < 0.001, { message: 'shares must add up to 1' }),
    /** The sliding window the shares are measured over (ms). */
    windowMs: z.number().int().positive().default(600_000),
    /** How far (absolute, 0.05 = 5 points) a share may stray from its target. */
    tolerance: z.number().gt(0).lt(1).default(0.05),
    /** Fewer answered requests than this in the window say nothing. */
    minRequests: z.number().int().positive().default(100),
  })
  .strict();

export const routerOptionsSchema = z.object({
  /** How candidates are ordered inside a tier (and across tiers for `cost-aware`). */
  strategy: strategy.default('priority-weighted'),
  /** Per classification tier (`request.switchyard.tier`): a different strategy. */
  tiers: z.record(z.string(), z.object({ strategy })).default({}),
  /** Remember the deployment that answered a conversation and prefer it while it is healthy. */
  sticky: z.boolean().default(false),
  /** How long a conversation stays pinned after its last answer (ms). */
  stickyTtlMs: z.number().int().positive().default(30 * 60_000),
  /** Without a conversation id, session id, `prompt_cache_key` or `user`: pin by a hash of the prompt up to its first `cache_control` breakpoint. */
  stickyPrefix: z.boolean().default(true),
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
  /** Time-of-day rules (off-peak routing): the first that applies to a request changes its order while its window is open. */
  schedule: z.array(scheduleRuleSchema).default([]),
  /** Per logical model: the declared split of answered requests; a drift beyond the tolerance emits `traffic:drift`. */
  trafficTargets: z.record(z.string(), trafficTargetSchema).default({}),
});

export type RouterOptions = z.output<typeof routerOptionsSchema>;
export type RouterOptionsInput = z.input<typeof routerOptionsSchema>;
