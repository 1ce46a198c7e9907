/**
 * One error family for everything Switchyard reports. Errors are recognised across copies of
 * this package by a `Symbol.for` marker, never by `instanceof`.
 */

export const ERROR_MARKER = Symbol.for('switchyard.error');

export type ErrorKind =
  | 'network'
  | 'timeout'
  | 'ttft-timeout'
  | 'idle-timeout'
  | 'rate-limit'
  | 'overloaded'
  | 'server'
  | 'auth'
  | 'payment'
  | 'budget-exhausted'
  | 'bad-request'
  | 'context-length'
  | 'content-filter'
  | 'not-found'
  | 'cancelled'
  | 'stream-cut'
  | 'all-candidates-failed'
  /* raised by Switchyard itself before any attempt */
  | 'invalid-request'
  | 'unknown-model'
  | 'no-candidate'
  | 'config'
  | 'plugin';

/** What each policy counts (DESIGN.md, outcome classes). */
export type OutcomeClass =
  | 'success'
  | 'endpoint-failure'
  | 'rate-limited'
  | 'key-failure'
  | 'request-failure'
  | 'misconfigured'
  | 'ignored';

/**
 * Every error code, declared once: its kind and the HTTP status a gateway client gets for that
 * kind (the gateway maps errors to replies with `httpStatusOf` and nothing else chooses a
 * reply status; `bad-request` keeps a vendor's 4xx and `all-candidates-failed` the status the
 * request run put on it).
 */
const KIND_INFO = {
  network: { code: 'SWITCHYARD_ERR_NETWORK', status: 502 },
  timeout: { code: 'SWITCHYARD_ERR_TIMEOUT', status: 504 },
  'ttft-timeout': { code: 'SWITCHYARD_ERR_TTFT_TIMEOUT', status: 504 },
  'idle-timeout': { code: 'SWITCHYARD_ERR_IDLE_TIMEOUT', status: 504 },
  'rate-limit': { code: 'SWITCHYARD_ERR_RATE_LIMIT', status: 429 },
  overloaded: { code: 'SWITCHYARD_ERR_OVERLOADED', status: 503 },
  server: { code: 'SWITCHYARD_ERR_SERVER', status: 502 },
  // Upstream credentials are the gateway's own problem, never the client's key.
  auth: { code: 'SWITCHYARD_ERR_AUTH', status: 502 },
  payment: { code: 'SWITCHYARD_ERR_PAYMENT', status: 502 },
  'budget-exhausted': { code: 'SWITCHYARD_ERR_BUDGET_EXHAUSTED', status: 429 },
  'bad-request': { code: 'SWITCHYARD_ERR_BAD_REQUEST', status: 400 },
  'context-length': { code: 'SWITCHYARD_ERR_CONTEXT_LENGTH', status: 400 },
  'content-filter': { code: 'SWITCHYARD_ERR_CONTENT_FILTER', status: 400 },
  'not-found': { code: 'SWITCHYARD_ERR_NOT_FOUND', status: 502 },
  cancelled: { code: 'SWITCHYARD_ERR_CANCELLED', status: 499 },
  'stream-cut': { code: 'SWITCHYARD_ERR_STREAM_CUT', status: 502 },
  'all-candidates-failed': { code: 'SWITCHYARD_ERR_ALL_CANDIDATES_FAILED', status: 502 },
  'invalid-request': { code: 'SWITCHYARD_ERR_INVALID_REQUEST', status: 400 },
  'unknown-model': { code: 'SWITCHYARD_ERR_UNKNOWN_MODEL', status: 404 },
  'no-candidate': { code: 'SWITCHYARD_ERR_NO_CANDIDATE', status: 503 },
  config: { code: 'SWITCHYARD_ERR_CONFIG', status: 500 },
  plugin: { code: 'SWITCHYARD_ERR_PLUGIN', status: 500 },
} as const satisfies Record<ErrorKind, { code: `SWITCHYARD_ERR_${string}`; status: number }>;

/** Codes more specific than their kind's own, with the kind they are raised with. */
const SPECIFIC_CODES = {
  SWITCHYARD_ERR_DEADLINE: 'timeout',
  SWITCHYARD_ERR_CONFIG_READ: 'config',
  SWITCHYARD_ERR_CONFIG_YAML: 'config',
  SWITCHYARD_ERR_CONFIG_ENV: 'config',
  SWITCHYARD_ERR_CONFIG_UNSAFE_BIND: 'config',
  SWITCHYARD_ERR_PLUGIN_OPTIONS: 'plugin',
  SWITCHYARD_ERR_PLUGIN_INVALID: 'plugin',
  SWITCHYARD_ERR_PLUGIN_IMPORT: 'plugin',
  SWITCHYARD_ERR_PLUGIN_MISSING: 'plugin',
  SWITCHYARD_ERR_PLUGIN_DEPENDENCY: 'plugin',
  SWITCHYARD_ERR_PLUGIN_VERSION_MISMATCH: 'plugin',
  SWITCHYARD_ERR_PROVIDER_VERSION: 'plugin',
  SWITCHYARD_ERR_MISSING_CAPABILITY: 'bad-request',
  SWITCHYARD_ERR_CONTEXT_WINDOW: 'context-length',
  SWITCHYARD_ERR_STORE_OPTIONS: 'config',
  SWITCHYARD_ERR_STORE_ARGUMENT: 'plugin',
  SWITCHYARD_ERR_STORE_UNAVAILABLE: 'plugin',
  SWITCHYARD_ERR_REDIS_URL: 'config',
  // Durable records (durable-records.ts, journal-records.ts, store-postgres, store-redis's persistence check).
  SWITCHYARD_ERR_RECORDS_OPTIONS: 'config',
  SWITCHYARD_ERR_RECORDS_LOCATION: 'config',
  SWITCHYARD_ERR_RECORDS_UNAVAILABLE: { kind: 'overloaded', status: 503 },
  SWITCHYARD_ERR_REDIS_NOT_DURABLE: 'config',
  SWITCHYARD_ERR_SIMULATION_READ: 'config',
  SWITCHYARD_ERR_SIMULATION_YAML: 'config',
  SWITCHYARD_ERR_SIMULATION_SCENARIO: 'config',
  SWITCHYARD_ERR_CHAOS_OPTIONS: 'config',
  SWITCHYARD_ERR_CHAOS_UNKNOWN_FAULT: 'config',
  SWITCHYARD_ERR_CHAOS_UNKNOWN_VENDOR: 'config',
  SWITCHYARD_ERR_MSW_UNHANDLED: 'config',
  SWITCHYARD_ERR_ENV_FILE: 'config',
  SWITCHYARD_ERR_REQUEST_UNSENT: 'invalid-request',
  SWITCHYARD_ERR_REQUEST_LIMIT: 'invalid-request',
  SWITCHYARD_ERR_INVALID_HINTS: 'invalid-request',
  // A budget tap that failed refuses the request rather than serve it uncharged.
  SWITCHYARD_ERR_PLUGIN_FAILED_CLOSED: 'plugin',
  SWITCHYARD_ERR_SHUTTING_DOWN: { kind: 'cancelled', status: 503 },
  SWITCHYARD_ERR_CONFIG_SECRET_FILE: 'config',
  SWITCHYARD_ERR_IDEMPOTENCY_CONFLICT: { kind: 'invalid-request', status: 409 },
  SWITCHYARD_ERR_IDEMPOTENCY_MISMATCH: { kind: 'invalid-request', status: 422 },
  // No deployment's provider can express a part of the request (expressible.ts).
  SWITCHYARD_ERR_UNEXPRESSIBLE: 'invalid-request',
  // The OpenAI Responses ingress: a stored response that is unknown or expired.
  SWITCHYARD_ERR_RESPONSE_NOT_FOUND: { kind: 'invalid-request', status: 404 },
  SWITCHYARD_ERR_PREVIOUS_RESPONSE_NOT_FOUND: 'invalid-request',
  // A parameter above the limits of every deployment of the model (plugin-model-limits).
  SWITCHYARD_ERR_PARAMETER_LIMIT: 'invalid-request',
  // An external secret (`${vault:…}`) could not be read, or its resolver is missing.
  SWITCHYARD_ERR_CONFIG_SECRET: 'config',
  // An idempotency key cannot be guarded because the shared store is down (idempotency.ts).
  SWITCHYARD_ERR_IDEMPOTENCY_UNAVAILABLE: { kind: 'plugin', status: 503 },
  // A vendor bill `switchyard usage --reconcile` cannot read (cli/src/vendor-bill.ts).
  SWITCHYARD_ERR_VENDOR_BILL: 'config',
  // A gateway key (a tenant's virtual key) and what it may do (plugin-tenants).
  SWITCHYARD_ERR_KEY_EXPIRED: { kind: 'invalid-request', status: 401 },
  SWITCHYARD_ERR_MODEL_NOT_ALLOWED: { kind: 'invalid-request', status: 403 },
  SWITCHYARD_ERR_KEY_RATE_LIMIT: 'rate-limit',
  SWITCHYARD_ERR_KEY_BUDGET: 'budget-exhausted',
  SWITCHYARD_ERR_KEY_NOT_FOUND: { kind: 'invalid-request', status: 404 },
  SWITCHYARD_ERR_KEY_CONFLICT: { kind: 'invalid-request', status: 409 },
  SWITCHYARD_ERR_KEY_INPUT: 'invalid-request',
} as const satisfies Record<`SWITCHYARD_ERR_${string}`, ErrorKind | { kind: ErrorKind; status: number }>;

/** Every code Switchyard raises. */
export type SwitchyardErrorCode = (typeof KIND_INFO)[ErrorKind]['code'] | keyof typeof SPECIFIC_CODES;

export interface ErrorCodeInfo {
  code: SwitchyardErrorCode;
  kind: ErrorKind;
  /** The HTTP status a gateway client gets for it. */
  status: number;
}

export const ERROR_CODES: Readonly<Record<SwitchyardErrorCode, ErrorCodeInfo>> = Object.freeze(
  Object.fromEntries([
    ...Object.entries(KIND_INFO).map(([kind, info]) => [info.code, { code: info.code, kind: kind as ErrorKind, status: info.status }]),
    ...Object.entries(SPECIFIC_CODES).map(([code, spec]) => {
      const { kind, status } = typeof spec === 'string' ? { kind: spec, status: KIND_INFO[spec].status } : spec;
      return [code, { code: code as SwitchyardErrorCode, kind, status }];
    }),
  ]) as Record<SwitchyardErrorCode, ErrorCodeInfo>,
);

export function isSwitchyardErrorCode(value: unknown): value is SwitchyardErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The HTTP status an error means to a gateway client: its code's when the code has its own, else its kind's. */
export function httpStatusOf(error: { kind: ErrorKind; code?: string }): number {
  const info = error.code !== undefined && Object.hasOwn(ERROR_CODES, error.code) ? ERROR_CODES[error.code as SwitchyardErrorCode] : undefined;
  return info?.kind === error.kind ? info.status : KIND_INFO[error.kind].status;
}

/** Kinds a policy may retry or fail over by default. */
const RETRYABLE_KINDS = new Set<ErrorKind>(['network', 'timeout', 'ttft-timeout', 'idle-timeout', 'rate-limit', 'overloaded', 'server', 'stream-cut']);

export interface SwitchyardErrorOptions {
  code?: SwitchyardErrorCode;
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  endpoint?: string;
  deployment?: string;
  provider?: string;
  keyId?: string;
  /** The vendor's own error type/code (`insufficient_quota`, `overloaded_error`…). */
  vendorCode?: string;
  /** The vendor's `error.type` and `error.param`, passed on to gateway clients. */
  vendorType?: string;
  param?: string;
  /** Response headers that policies need (rate-limit and retry headers only). */
  headers?: Record<string, string>;
  cause?: unknown;
  attempts?: SwitchyardError[];
  /** Where in the request or config the problem is (`messages`, `endpoints[2].baseUrl`). */
  path?: string;
}

export class SwitchyardError extends Error {
  readonly [ERROR_MARKER] = true;
  readonly kind: ErrorKind;
  readonly code: SwitchyardErrorCode;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  endpoint?: string;
  deployment?: string;
  provider?: string;
  keyId?: string;
  readonly vendorCode?: string;
  readonly vendorType?: string;
  readonly param?: string;
  readonly headers?: Record<string, string>;
  readonly attempts?: SwitchyardError[];
  readonly path?: string;

  constructor(kind: ErrorKind, message: string, options: SwitchyardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchyardError';
    this.kind = kind;
    this.code = options.code ?? KIND_INFO[kind].code;
    this.status = options.status;
    this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
    this.retryAfterMs = options.retryAfterMs;
    this.endpoint = options.endpoint;
    this.deployment = options.deployment;
    this.provider = options.provider;
    this.keyId = options.keyId;
    this.vendorCode = options.vendorCode;
    this.vendorType = options.vendorType;
    this.param = options.param;
    this.headers = options.headers;
    this.attempts = options.attempts;
    this.path = options.path;
  }

  static isInstance(value: unknown): value is SwitchyardError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ERROR_MARKER] === true;
  }

  get outcome(): OutcomeClass {
    return outcomeOf(this);
  }

  toJSON(): Record<string, unknown> {
    // An attempt list may contain this very error (a request failure is also its last attempt).
    return { ...this.summary(), attempts: this.attempts?.map((a) => a.summary()) };
  }

  /** The error without its attempt list. */
  summary(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      code: this.code,
      message: this.message,
      status: this.status,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      endpoint: this.endpoint,
      deployment: this.deployment,
      provider: this.provider,
      keyId: this.keyId,
      vendorCode: this.vendorCode,
      path: this.path,
    };
  }
}

export const isSwitchyardError = SwitchyardError.isInstance;

export function errorCode(kind: ErrorKind): SwitchyardErrorCode {
  return KIND_INFO[kind].code;
}

/** The outcome class that breakers, health, quota and retry count an error under. */
export function outcomeOf(error: unknown): OutcomeClass {
  if (!isSwitchyardError(error)) return 'endpoint-failure';
  switch (error.kind) {
    case 'cancelled':
      return 'ignored';
    case 'rate-limit':
      return 'rate-limited';
    case 'auth':
    case 'payment':
      return 'key-failure';
    case 'budget-exhausted':
      return 'ignored';
    case 'bad-request':
    case 'context-length':
    case 'content-filter':
    case 'invalid-request':
      return 'request-failure';
    case 'not-found':
      return 'misconfigured';
    case 'unknown-model':
    case 'no-candidate':
    case 'config':
    case 'plugin':
    case 'all-candidates-failed':
      return 'ignored';
    default:
      return 'endpoint-failure';
  }
}

/** Turns anything thrown into a SwitchyardError without losing the original. */
export function toSwitchyardError(error: unknown, fallbackKind: ErrorKind = 'network'): SwitchyardError {
  if (isSwitchyardError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchyardError(fallbackKind, message, { cause: error });
}
