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

const KIND_CODES: Record<ErrorKind, string> = {
  network: 'SWITCHYARD_ERR_NETWORK',
  timeout: 'SWITCHYARD_ERR_TIMEOUT',
  'ttft-timeout': 'SWITCHYARD_ERR_TTFT_TIMEOUT',
  'idle-timeout': 'SWITCHYARD_ERR_IDLE_TIMEOUT',
  'rate-limit': 'SWITCHYARD_ERR_RATE_LIMIT',
  overloaded: 'SWITCHYARD_ERR_OVERLOADED',
  server: 'SWITCHYARD_ERR_SERVER',
  auth: 'SWITCHYARD_ERR_AUTH',
  payment: 'SWITCHYARD_ERR_PAYMENT',
  'budget-exhausted': 'SWITCHYARD_ERR_BUDGET_EXHAUSTED',
  'bad-request': 'SWITCHYARD_ERR_BAD_REQUEST',
  'context-length': 'SWITCHYARD_ERR_CONTEXT_LENGTH',
  'content-filter': 'SWITCHYARD_ERR_CONTENT_FILTER',
  'not-found': 'SWITCHYARD_ERR_NOT_FOUND',
  cancelled: 'SWITCHYARD_ERR_CANCELLED',
  'stream-cut': 'SWITCHYARD_ERR_STREAM_CUT',
  'all-candidates-failed': 'SWITCHYARD_ERR_ALL_CANDIDATES_FAILED',
  'invalid-request': 'SWITCHYARD_ERR_INVALID_REQUEST',
  'unknown-model': 'SWITCHYARD_ERR_UNKNOWN_MODEL',
  'no-candidate': 'SWITCHYARD_ERR_NO_CANDIDATE',
  config: 'SWITCHYARD_ERR_CONFIG',
  plugin: 'SWITCHYARD_ERR_PLUGIN',
};

/** Kinds a policy may retry or fail over by default. */
const RETRYABLE_KINDS = new Set<ErrorKind>(['network', 'timeout', 'ttft-timeout', 'idle-timeout', 'rate-limit', 'overloaded', 'server', 'stream-cut']);

export interface SwitchyardErrorOptions {
  code?: string;
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  endpoint?: string;
  deployment?: string;
  provider?: string;
  keyId?: string;
  /** The vendor's own error type/code (`insufficient_quota`, `overloaded_error`…). */
  vendorCode?: string;
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
  readonly code: string;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  endpoint?: string;
  deployment?: string;
  provider?: string;
  keyId?: string;
  readonly vendorCode?: string;
  readonly headers?: Record<string, string>;
  readonly attempts?: SwitchyardError[];
  readonly path?: string;

  constructor(kind: ErrorKind, message: string, options: SwitchyardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchyardError';
    this.kind = kind;
    this.code = options.code ?? KIND_CODES[kind];
    this.status = options.status;
    this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
    this.retryAfterMs = options.retryAfterMs;
    this.endpoint = options.endpoint;
    this.deployment = options.deployment;
    this.provider = options.provider;
    this.keyId = options.keyId;
    this.vendorCode = options.vendorCode;
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

export function errorCode(kind: ErrorKind): string {
  return KIND_CODES[kind];
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

/** Shorter runs of a key are too likely to be ordinary text; longer ones identify the key. */
export const SECRET_FRAGMENT_LENGTH = 8;

interface Fragments {
  /** Rolling hashes of the fragments: a cheap first test per position of the text. */
  hashes: ReadonlySet<number>;
  grams: ReadonlySet<string>;
}

/** Fragment sets per secret: secrets come from config, so this stays small (and is bounded anyway). */
const fragmentCache = new Map<string, Fragments>();
const FRAGMENT_CACHE_MAX = 256;
const BASE = 31;
/** BASE^(SECRET_FRAGMENT_LENGTH-1) in 32-bit arithmetic, to drop a character from the rolling hash. */
const TOP = Array.from({ length: SECRET_FRAGMENT_LENGTH - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1);

function hashAt(text: string, start: number): number {
  let h = 0;
  for (let i = start; i < start + SECRET_FRAGMENT_LENGTH; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

/** Every SECRET_FRAGMENT_LENGTH-long run of the secret, lower-cased, as written and URL-encoded. */
function fragmentsOf(secret: string): Fragments {
  let fragments = fragmentCache.get(secret);
  if (fragments) return fragments;
  const grams = new Set<string>();
  const hashes = new Set<number>();
  for (const form of new Set([secret, encodeURIComponent(secret), encodeURIComponent(encodeURIComponent(secret))])) {
    const lower = asciiLower(form);
    for (let i = 0; i + SECRET_FRAGMENT_LENGTH <= lower.length; i++) {
      grams.add(lower.slice(i, i + SECRET_FRAGMENT_LENGTH));
      hashes.add(hashAt(lower, i));
    }
  }
  if (fragmentCache.size >= FRAGMENT_CACHE_MAX) fragmentCache.clear();
  fragmentCache.set(secret, (fragments = { hashes, grams }));
  return fragments;
}

/** Lower-cases ASCII only, so positions in the result match positions in the input. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** Masks every run of `text` made of key fragments (case-insensitive, URL-encoded too). */
function maskFragments(text: string, secrets: readonly string[]): string {
  if (text.length < SECRET_FRAGMENT_LENGTH) return text;
  const sets = secrets.map(fragmentsOf);
  const lower = asciiLower(text);
  let covered: Uint8Array | undefined;
  let h = hashAt(lower, 0);
  for (let i = 0; i + SECRET_FRAGMENT_LENGTH <= lower.length; i++) {
    if (i > 0) h = (Math.imul(h - Math.imul(lower.charCodeAt(i - 1), TOP), BASE) + lower.charCodeAt(i + SECRET_FRAGMENT_LENGTH - 1)) | 0;
    for (const set of sets) {
      if (!set.hashes.has(h) || !set.grams.has(lower.slice(i, i + SECRET_FRAGMENT_LENGTH))) continue;
      (covered ??= new Uint8Array(text.length)).fill(1, i, i + SECRET_FRAGMENT_LENGTH);
      break;
    }
  }
  if (!covered) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (!covered[i]) {
      out += text[i++];
      continue;
    }
    while (i < text.length && covered[i]) i++;
    out += '[redacted]';
  }
  return out;
}

/**
 * Keys and bearer tokens never leave the process in a message: every run of 8 or more
 * characters of a configured key is masked, in any letter case and URL-encoded, so a vendor
 * echoing a prefix, a suffix or an upper-cased key cannot leak it. Shorter secrets (4-7
 * characters) are masked where they appear whole; well-known key shapes always.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  const long: string[] = [];
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    if (secret.length >= SECRET_FRAGMENT_LENGTH) long.push(secret);
    else out = out.split(secret).join('[redacted]');
  }
  if (long.length > 0) out = maskFragments(out, long);
  return out
    .replace(/\b(sk-[A-Za-z0-9_-]{6})[A-Za-z0-9_-]{8,}/g, '$1…[redacted]')
    .replace(/\b(AIza[0-9A-Za-z_-]{4})[0-9A-Za-z_-]{20,}/g, '$1…[redacted]')
    .replace(/(Bearer\s+)[^\s"']+/gi, '$1[redacted]');
}
