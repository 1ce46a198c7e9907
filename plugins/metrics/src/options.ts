/** Options of the metrics plugin; all optional: with none it exports everything to prom-client's default registry. */
import { z } from 'zod';
import { DEFAULT_BACKOFF_BUCKETS, DEFAULT_DURATION_BUCKETS, DEFAULT_TTFT_BUCKETS } from './metric-set.js';

const bucketList = z.array(z.number().finite().positive()).min(1).refine((b) => b.every((v, i) => i === 0 || v > b[i - 1]), 'buckets must be increasing');
const price = z.object({ input: z.number().finite().min(0), output: z.number().finite().min(0), cachedInput: z.number().finite().min(0).optional(), cacheWrite: z.number().finite().min(0).optional() }).strict();

export const metricsOptionsSchema = z
  .object({
    /** A prom-client Registry (library users); default: prom-client's global `register`. */
    registry: z.custom<import('prom-client').Registry>((v) => typeof v === 'object' && v !== null && typeof (v as { metrics?: unknown }).metrics === 'function', 'a prom-client Registry').optional(),
    buckets: z
      .object({ request: bucketList.default(DEFAULT_DURATION_BUCKETS), attempt: bucketList.default(DEFAULT_DURATION_BUCKETS), ttft: bucketList.default(DEFAULT_TTFT_BUCKETS), backoff: bucketList.default(DEFAULT_BACKOFF_BUCKETS) })
      .strict()
      .default({ request: DEFAULT_DURATION_BUCKETS, attempt: DEFAULT_DURATION_BUCKETS, ttft: DEFAULT_TTFT_BUCKETS, backoff: DEFAULT_BACKOFF_BUCKETS }),
    /** Gateway keys with series of their own (`gateway_key` label); requests of later keys count under `(other)`. */
    maxGatewayKeys: z.number().int().positive().default(500),
    /** USD per million tokens by `endpoint/model` or upstream model, when a deployment has no `price`. */
    prices: z.record(z.string(), price).default({}),
  })
  .strict();

export type MetricsOptions = z.output<typeof metricsOptionsSchema>;
export type MetricsOptionsInput = z.input<typeof metricsOptionsSchema>;
