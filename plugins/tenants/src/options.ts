/**
 * What a key may do (its spec: the admin API's body and a config-declared key alike) and the
 * plugin's options. Budgets are in the currency of the price table (USD per million tokens).
 */
import { HINT_LIMITS } from '@switchyard/core/internal';
import { z } from 'zod';

/** Names of keys and teams: they appear in logs, metrics and URLs, so they stay plain. */
const name = z.string().min(1).max(128).regex(/^[A-Za-z0-9][A-Za-z0-9_.@:-]*$/, 'letters, digits and _ . @ : - only, starting with a letter or digit');

const MAX_METADATA_BYTES = 4096;

export const budgetWindowSchema = z
  .object({
    /** The budget of the window, in USD. */
    limitUsd: z.number().finite().positive(),
    /** Share of the limit at which an alert fires (the request still runs). */
    soft: z.number().gt(0).lte(1).default(0.8),
    /** Share of the limit past which requests are refused (above 1 allows an overdraft). */
    hard: z.number().gt(0).max(10).default(1),
  })
  .strict()
  .refine((w) => w.soft <= w.hard, { message: 'soft must not be above hard', path: ['soft'] });

export const budgetSchema = z.object({ day: budgetWindowSchema.optional(), month: budgetWindowSchema.optional() }).strict();

export const limitsSchema = z
  .object({
    /** Requests a minute (UTC minute windows), across every gateway on the store. */
    rpm: z.number().int().positive(),
    /** Prompt + completion tokens a minute. */
    tpm: z.number().int().positive(),
    /** Requests in flight at once. */
    concurrency: z.number().int().positive(),
  })
  .partial()
  .strict();

const tags = z
  .record(z.string().min(1).max(HINT_LIMITS.maxTagKeyLength), z.string().max(HINT_LIMITS.maxTagValueLength))
  .refine((t) => Object.keys(t).length <= HINT_LIMITS.maxTags, `at most ${HINT_LIMITS.maxTags} tags`);

const modelPattern = z.string().min(1).max(256);

/** Everything a key says about its holder and its limits, all optional but the name. */
export const keyFieldsSchema = z
  .object({
    name,
    team: name.optional(),
    /** Who holds the key (an e-mail, a service). */
    owner: z.string().min(1).max(256).optional(),
    /** ISO time after which the key is refused. */
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    /** Logical models (names or `*` globs) the key may call; absent = every model. */
    models: z.array(modelPattern).max(100).optional(),
    limits: limitsSchema.optional(),
    budget: budgetSchema.optional(),
    /** Tags every request of the key carries (`request.switchyard.tags`: tag budgets, reports). */
    tags: tags.optional(),
    /** The routing tier of the key's requests when a request names none. */
    tier: z.string().min(1).max(HINT_LIMITS.maxIdLength).optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .refine((m) => JSON.stringify(m).length <= MAX_METADATA_BYTES, `at most ${MAX_METADATA_BYTES} bytes of JSON`)
      .optional(),
  })
  .strict();

export type KeyFields = z.output<typeof keyFieldsSchema>;
export type Budget = z.output<typeof budgetSchema>;
export type BudgetWindow = z.output<typeof budgetWindowSchema>;
export type Limits = z.output<typeof limitsSchema>;

/** An update: any field; `null` clears an optional one. */
export const keyUpdateSchema = z
  .object({
    name: name.optional(),
    team: name.nullable().optional(),
    owner: z.string().min(1).max(256).nullable().optional(),
    expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
    models: z.array(modelPattern).max(100).nullable().optional(),
    limits: limitsSchema.nullable().optional(),
    budget: budgetSchema.nullable().optional(),
    tags: tags.nullable().optional(),
    tier: z.string().min(1).max(HINT_LIMITS.maxIdLength).nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).refine((m) => JSON.stringify(m).length <= MAX_METADATA_BYTES, `at most ${MAX_METADATA_BYTES} bytes of JSON`).nullable().optional(),
  })
  .strict();

export type KeyUpdate = z.output<typeof keyUpdateSchema>;

export const rotateSchema = z
  .object({
    /** The old secret keeps working this long after the rotation (0: refused at once). */
    graceSeconds: z.number().int().min(0).max(30 * 86_400).default(0),
  })
  .strict();

export const teamSchema = z.object({ budget: budgetSchema.nullable().optional() }).strict();

/** A key declared in the config: its secret comes from the config (a `${VAR}`), so it is never stored. */
export const declaredKeySchema = keyFieldsSchema.extend({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits and _ . - only (at most 64)'),
  secret: z.string().min(16, 'at least 16 characters'),
});

export type DeclaredKey = z.output<typeof declaredKeySchema>;

const price = z.object({ input: z.number().finite().min(0), output: z.number().finite().min(0), cachedInput: z.number().finite().min(0).optional() }).strict();

export const tenantsOptionsSchema = z
  .object({
    /** Keys declared in the config (read-only through the admin API); ids must be unique. */
    keys: z
      .array(declaredKeySchema)
      .default([])
      .refine((keys) => new Set(keys.map((k) => k.id)).size === keys.length, 'key ids must be unique')
      .refine((keys) => new Set(keys.map((k) => k.secret)).size === keys.length, 'two keys have the same secret'),
    /** Team budgets from the config; a budget set through the admin API replaces the team's. */
    teams: z.record(name, z.object({ budget: budgetSchema.optional() }).strict()).default({}),
    /** How long a gateway trusts a key it read (revocations reach the others at once by pub/sub; this bounds them without it). */
    cacheTtlMs: z.number().int().positive().max(60_000).default(1_000),
    /** Keys held in memory per gateway. */
    maxCachedKeys: z.number().int().positive().default(10_000),
    /** Output tokens a request is assumed to use when it sets no `max_tokens` (for the reservation before the call). */
    reserveOutputTokens: z.number().int().min(0).default(1_024),
    /** Input tokens one image is reserved at (the vendors' size rules keep an image below this). */
    imageTokens: z.number().int().min(0).default(2_500),
    /** Calls a server tool (web search…) without `max_uses` is reserved for. */
    serverToolCalls: z.number().int().min(0).default(10),
    /** Let keys with a budget reach deployments that have no price (they are billed $0 there). */
    allowUnpriced: z.boolean().default(false),
    /** USD per million tokens by `endpoint/model` or upstream model, for a pipeline without @switchyard/plugin-quota (which otherwise prices). */
    prices: z.record(z.string(), price).default({}),
    /**
     * Fair shares of upstream connections: one key holds at most `share` of an origin's
     * connections (`connections`, default: what the transport says, `upstream.connections`);
     * over it a request waits up to `queueMs` for one of the key's own to free, then gets a
     * coded 429. `false`: no shares.
     */
    connectionShare: z
      .union([
        z.literal(false),
        z
          .object({
            share: z.number().gt(0).max(1).default(0.5),
            queueMs: z.number().int().min(0).max(60_000).default(2_000),
            connections: z.number().int().positive().optional(),
          })
          .strict(),
      ])
      .default({ share: 0.5, queueMs: 2_000 }),
    storePrefix: z.string().min(1).default('switchyard:tenants'),
  })
  .strict();

export type TenantsOptions = z.output<typeof tenantsOptionsSchema>;
export type TenantsOptionsInput = z.input<typeof tenantsOptionsSchema>;
