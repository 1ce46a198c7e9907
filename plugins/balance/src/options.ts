/** The balance plugin's options, validated by zod when the plugin is created. */
import { z } from 'zod';

export const endpointBalanceSchema = z
  .object({
    /** Alert (`balance:update` with `low: true`) when the available balance falls under this, in the account's currency. */
    minBalance: z.number().nonnegative().optional(),
    /** `false`: do not poll this endpoint. */
    poll: z.boolean().default(true),
  })
  .strict();

export const balanceOptionsSchema = z
  .object({
    /** How often every key's balance is asked for (default 10 min). */
    everyMs: z.number().int().positive().default(600_000),
    /** A balance request that takes longer is given up (and reported). */
    timeoutMs: z.number().int().positive().default(10_000),
    /** Per endpoint name: its threshold, or `poll: false`. Endpoints not listed are polled without a threshold. */
    endpoints: z.record(z.string().min(1), endpointBalanceSchema).default({}),
  })
  .strict();

export type BalanceOptions = z.output<typeof balanceOptionsSchema>;
export type BalanceOptionsInput = z.input<typeof balanceOptionsSchema>;
