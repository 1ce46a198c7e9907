/**
 * zod schemas for the configuration, shared by the YAML loader and createPipeline(), so a bad
 * config fails the same way from a file or from code: one coded error naming the path.
 */
import { errorRuleSchema } from './error-rules.js';
import { z } from 'zod';
import { didYouMean, knownFieldsAt, unknownFieldsMessage } from './did-you-mean.js';
import { SwitchyardError } from './errors.js';
import { requestLimitsSchema } from './request-limits.js';
import type { EndpointConfig, ModelsConfig } from './types.js';

const timeoutsSchema = z
  .object({
    headersMs: z.number().positive(),
    firstTokenMs: z.number().positive(),
    idleMs: z.number().positive(),
    attemptMs: z.number().positive(),
    firstByteMs: z.number().positive(),
  })
  .partial()
  .strict();

/** An http(s) URL (endpoints' baseUrl; first-party plugins' service addresses). */
export const httpUrlSchema = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'expected an http(s) URL');

export const endpointSchema = z
  .object({
    name: z.string().min(1).regex(/^[A-Za-z0-9._:-]+$/, 'expected letters, digits, ".", "_", ":" or "-"'),
    provider: z.string().min(1),
    baseUrl: httpUrlSchema.optional(),
    apiKey: z.string().optional(),
    apiKeys: z.array(z.string()).optional(),
    keyIds: z.array(z.string()).optional(),
    apiVersion: z.string().optional(),
    /** A cloud provider's region (Bedrock: `us-east-1`). */
    region: z.string().regex(/^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d+$/, 'expected an AWS region like us-east-1').optional(),
    /** A Google Cloud project id (Vertex AI). */
    project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'expected a Google Cloud project id (6-30 lower-case letters, digits or "-")').optional(),
    /** A Google Cloud location (Vertex AI: `europe-west1`, `us-east5`, `global`). */
    location: z.string().regex(/^(global|[a-z]+-[a-z]+\d+)$/, 'expected a Google Cloud location like europe-west1 or global').optional(),
    headers: z.record(z.string(), z.string()).optional(),
    enabled: z.boolean().optional(),
    timeouts: timeoutsSchema.optional(),
    options: z.record(z.string(), z.unknown()).optional(),
    errors: z.array(errorRuleSchema).optional(),
  })
  .strict();

export const priceSchema = z
  .object({
    input: z.number().nonnegative('prices cannot be negative'),
    output: z.number().nonnegative('prices cannot be negative'),
    cachedInput: z.number().nonnegative('prices cannot be negative').optional(),
    cacheWrite: z.number().nonnegative('prices cannot be negative').optional(),
    /** USD per call of a server / hosted tool, by kind (`web_search`). */
    perCall: z.record(z.string().min(1), z.number().nonnegative('prices cannot be negative')).optional(),
    /** The rates of a request whose prompt is longer than `aboveInputTokens`. */
    longContext: z
      .object({
        aboveInputTokens: z.number().int().positive(),
        input: z.number().nonnegative('prices cannot be negative'),
        output: z.number().nonnegative('prices cannot be negative'),
        cachedInput: z.number().nonnegative('prices cannot be negative').optional(),
        cacheWrite: z.number().nonnegative('prices cannot be negative').optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const range = z.tuple([z.number(), z.number()]).refine(([lo, hi]) => lo <= hi, 'expected [min, max] with min <= max');

/** What a deployment accepts (checked before sending by @switchyard/plugin-model-limits). */
export const modelLimitsSchema = z
  .object({
    maxOutputTokens: z.number().int().positive(),
    temperature: range,
    topP: range,
    presencePenalty: range,
    frequencyPenalty: range,
    maxStop: z.number().int().nonnegative(),
    values: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'expected a request field path like thinking.type'), z.array(z.string()).min(1, 'list at least one accepted value')),
  })
  .partial()
  .strict();

export const deploymentSchema = z
  .object({
    endpoint: z.string().min(1),
    model: z.string().min(1),
    priority: z.number().int().optional(),
    weight: z.number().positive().optional(),
    contextWindow: z.number().int().positive().optional(),
    capabilities: z.array(z.string()).optional(),
    price: priceSchema.optional(),
    timeouts: timeoutsSchema.optional(),
    limits: modelLimitsSchema.optional(),
    translate: z.enum(['drop', 'strict']).optional(),
  })
  .strict();

export const modelsSchema = z.record(z.string().min(1), z.array(deploymentSchema).min(1, 'a model needs at least one deployment'));

export const pluginEntrySchema = z.union([
  z.string().min(1),
  z.object({ use: z.string().min(1), options: z.unknown().optional() }).strict(),
]);

export const serverSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    apiKeys: z.array(z.string()).default([]),
    /** Keys of the admin API (`/switchyard/keys`: plugin-tenants); never accepted where a gateway key is, nor the reverse. */
    adminKeys: z.array(z.string()).default([]),
    maxBodyBytes: z.number().int().positive().default(4 * 1024 * 1024),
    maxInFlight: z.number().int().positive().default(1024),
    /** Request-body bytes being read at once, across all requests; past it new bodies get 503. */
    maxBodyBytesInFlight: z.number().int().positive().default(256 * 1024 * 1024),
    /** A request body must arrive within this time, or it gets 408 (it never holds a slot meanwhile). */
    bodyTimeoutMs: z.number().int().positive().default(10_000),
    heartbeatMs: z.number().int().positive().default(5000),
    /** A streaming client that reads nothing for this long is disconnected (its attempt aborted upstream). */
    writeTimeoutMs: z.number().int().positive().default(30_000),
    /** Error messages to clients name the upstream vendor, endpoint and deployment (default: they do not). */
    exposeUpstream: z.boolean().default(false),
    requestTimeoutMs: z.number().int().positive().optional(),
    shutdownGraceMs: z.number().int().positive().default(30_000),
    /** Log level of `switchyard serve` (LOG_LEVEL overrides it). */
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
    /** Host names (besides loopback) a keyless gateway answers to: DNS-rebinding protection. */
    hosts: z.array(z.string().min(1)).default([]),
    /** Browser origins allowed to call the gateway cross-origin (exact `scheme://host[:port]`). */
    cors: z.array(z.string().regex(/^https?:\/\/[^/]+$/, 'expected an origin like https://app.example.com')).default([]),
    /** Bounded work per request (request-limits.ts); unset fields keep their defaults. */
    limits: requestLimitsSchema.optional(),
    /** How long a response stored with `store: true` on POST /v1/responses stays retrievable (default 24 h). */
    responseTtlMs: z.number().int().positive().default(86_400_000),
    /** Bounds of stored Responses: bytes per gateway key and in all within the TTL, and of one conversation expanded from `previous_response_id`. */
    responseStore: z
      .object({
        maxBytesPerKey: z.number().int().positive().default(64 * 1024 * 1024),
        maxBytes: z.number().int().positive().default(1024 * 1024 * 1024),
        maxConversationBytes: z.number().int().positive().default(4 * 1024 * 1024),
      })
      .strict()
      .default({ maxBytesPerKey: 64 * 1024 * 1024, maxBytes: 1024 * 1024 * 1024, maxConversationBytes: 4 * 1024 * 1024 }),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSchema.optional(),
    endpoints: z.array(endpointSchema).min(1, 'at least one endpoint is needed'),
    models: modelsSchema,
    plugins: z.array(pluginEntrySchema).default([]),
    deadlineMs: z.number().int().positive().optional(),
    /** A shared StateStore (breakers, cooldowns, quota) from a package, e.g. @switchyard/store-redis. */
    store: z
      .object({
        use: z.string().min(1).optional(),
        options: z.unknown().optional(),
        /** In-memory store only: written on graceful shutdown, loaded at start (relative to the config file). */
        snapshot: z.string().min(1).optional(),
      })
      .strict()
      .refine((s) => !(s.use && s.snapshot), { message: 'snapshot applies to the in-memory store only; a shared store keeps its own state', path: ['snapshot'] })
      .optional(),
    upstream: z
      .object({
        ca: z.string().optional(),
        connectTimeoutMs: z.number().int().positive().optional(),
        connections: z.number().int().positive().optional(),
        /** How much of a vendor's answer is read before the attempt fails over (response-limits.ts). */
        responseLimits: z.object({ maxBodyBytes: z.number().int().positive(), maxEventChars: z.number().int().positive() }).partial().strict().optional(),
      })
      .strict()
      .optional(),
    /**
     * Where durable records live (keys, teams, spend, usage totals, stored Responses, incidents;
     * docs/deploy.md). Unset: a journal beside the config file for a single gateway, the shared
     * store itself (checked for persistence at start) with `store.use`. `false`: soft state only.
     */
    records: z
      .union([
        z.literal(false),
        z
          .object({
            /** The embedded journal of one gateway, relative to the config file. */
            file: z.string().min(1).optional(),
            /** A record store package for several gateways, e.g. @switchyard/store-postgres. */
            use: z.string().min(1).optional(),
            options: z.unknown().optional(),
            /** Keep them in the shared store itself (Redis run with persistence, checked at start). */
            inStore: z.literal(true).optional(),
            /** Longest a spend counter waits before its checkpoint (ms). */
            flushMs: z.number().int().min(10).max(1_000).optional(),
          })
          .strict()
          .refine((r) => [r.file, r.use, r.inStore].filter((v) => v !== undefined).length <= 1, { message: 'give one of file, use or inStore', path: ['use'] })
          .refine((r) => r.options === undefined || r.use !== undefined, { message: 'options go with use', path: ['options'] }),
      ])
      .optional(),
    /** Secret resolvers for `${scheme:reference}` values (secret-resolvers.ts), e.g. @switchyard/plugin-vault. */
    secrets: z.array(pluginEntrySchema).optional(),
    /** Idempotency keys while the shared store is down: `refuse` (503, the default) or `local` (per instance, with a warning). */
    idempotency: z.object({ whenStoreUnavailable: z.enum(['refuse', 'local']).optional() }).strict().optional(),
    /** Mid-stream continuation: bytes of a pass-through stream kept for it (kept-stream.ts). */
    continuation: z.object({ maxBytes: z.number().int().positive().optional() }).strict().optional(),
  })
  .strict();

export type SwitchyardConfig = z.output<typeof configSchema>;
export type ServerConfig = z.output<typeof serverSchema>;
export type PluginEntry = z.output<typeof pluginEntrySchema>;

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/** One problem per zod issue, each naming its path; unknown fields with the closest known one. */
export function schemaProblems(error: z.ZodError, prefix = '', schema: z.ZodType = configSchema): SwitchyardError[] {
  return error.issues.map((issue) => {
    const path = formatPath([...(prefix ? [prefix] : []), ...issue.path]);
    const message = issue.code === 'unrecognized_keys' ? unknownFieldsMessage(issue.keys, knownFieldsAt(schema, issue.path)) : issue.message;
    return new SwitchyardError('config', `${path}: ${message}`, { code: 'SWITCHYARD_ERR_CONFIG', path });
  });
}

/** Several problems as one coded error: every message, one a line; the first one's code and path. */
export function combineProblems(problems: readonly SwitchyardError[]): SwitchyardError {
  if (problems.length === 1) return problems[0];
  const [first] = problems;
  return new SwitchyardError(first.kind, problems.map((p) => p.message).join('\n'), { code: first.code, path: first.path, cause: problems });
}

/** Turns zod issues into one coded config error that names every bad path. */
export function configError(error: z.ZodError, prefix = '', schema: z.ZodType = configSchema): SwitchyardError {
  return combineProblems(schemaProblems(error, prefix, schema));
}

/** What a deployment names, read from a config that may not have passed the schema. */
interface ReferenceInput {
  endpoints: readonly { name?: unknown }[];
  models: Readonly<Record<string, readonly { endpoint?: unknown }[] | unknown>>;
}

/** Cross-references zod cannot express, every one: unique names, deployments pointing at real endpoints. */
export function referenceProblems({ endpoints, models }: ReferenceInput): SwitchyardError[] {
  const problems: SwitchyardError[] = [];
  const names = new Set<string>();
  endpoints.forEach((e, i) => {
    if (typeof e?.name !== 'string') return;
    if (names.has(e.name)) problems.push(new SwitchyardError('config', `endpoints[${i}].name: duplicate endpoint name "${e.name}"`, { code: 'SWITCHYARD_ERR_CONFIG', path: `endpoints[${i}].name` }));
    names.add(e.name);
  });
  for (const [model, deployments] of Object.entries(models)) {
    if (!Array.isArray(deployments)) continue;
    deployments.forEach((d: { endpoint?: unknown } | undefined, i) => {
      if (typeof d?.endpoint === 'string' && !names.has(d.endpoint)) {
        const path = `models.${model}[${i}].endpoint`;
        problems.push(new SwitchyardError('config', `${path}: unknown endpoint "${d.endpoint}"${didYouMean(d.endpoint, names)} (known: ${[...names].join(', ')})`, { code: 'SWITCHYARD_ERR_CONFIG', path }));
      }
    });
  }
  return problems;
}

/** Cross-references zod cannot express: unique names, deployments pointing at real endpoints. */
export function checkReferences(endpoints: readonly EndpointConfig[], models: ModelsConfig): void {
  const problems = referenceProblems({ endpoints, models });
  if (problems.length) throw combineProblems(problems);
}

export function validateEndpointsAndModels(endpoints: unknown, models: unknown): { endpoints: EndpointConfig[]; models: ModelsConfig } {
  const e = z.array(endpointSchema).safeParse(endpoints);
  if (!e.success) throw configError(e.error, 'endpoints', z.array(endpointSchema));
  const m = modelsSchema.safeParse(models);
  if (!m.success) throw configError(m.error, 'models', modelsSchema);
  checkReferences(e.data as EndpointConfig[], m.data as ModelsConfig);
  return { endpoints: e.data as EndpointConfig[], models: m.data as ModelsConfig };
}
