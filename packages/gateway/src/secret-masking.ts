/**
 * The one serializer every gateway log line, status answer and metric label passes through:
 * every configured key value, and any 8+ character piece of one, is masked wherever it occurs,
 * because vendors echo keys in their error text.
 */
import { isSwitchyardError, redactSecrets, REDACTED, SECRET_FRAGMENT_LENGTH, type Pipeline } from '@switchyard/core';
import type { Logger, LogFields } from './logger.js';

const MAX_DEPTH = 6;

/**
 * Fields whose value is censored whatever it is (compared lower-cased), wherever they occur:
 * credentials of a request's headers or of a config. A config endpoint's `headers` are
 * censored whole (`endpoints[].headers`), since any custom header may carry a credential.
 */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'apikey', 'apikeys', 'api_key']);

/** Every sensitive field name matches this: the exact test runs (lower-cased) only on those that do. */
const MAYBE_SENSITIVE = /key|auth|headers/i;

function isSensitive(lowerKey: string, parent: string | undefined): boolean {
  return SENSITIVE_FIELDS.has(lowerKey) || (lowerKey === 'headers' && parent === 'endpoints');
}

type SecretSource = () => readonly (string | undefined)[];

/** Masks known secrets in text and in any value built of objects, arrays and strings. */
export class SecretMasker {
  private secrets: readonly string[] = [];
  private lastSource: readonly (string | undefined)[] = [];
  /** What each source returned last time. */
  private lastReads: (readonly (string | undefined)[])[] = [];
  private readonly sources: SecretSource[];

  constructor(source: SecretSource) {
    this.sources = [source];
  }

  /** Masks these secrets too (a gateway logging through a logger that masks); returns the removal. */
  addSource(source: SecretSource): () => void {
    this.sources.push(source);
    return () => {
      const at = this.sources.indexOf(source);
      if (at > 0) this.sources.splice(at, 1);
    };
  }

  /**
   * Reads the secrets again; the sorted list is rebuilt only when they changed (a reload). A
   * source that returns the same frozen array as last time has not changed, so that read costs
   * nothing; any other read is compared element by element.
   */
  private refresh(): void {
    const { sources, lastReads } = this;
    let unchanged = sources.length === lastReads.length;
    for (let i = 0; i < sources.length; i++) {
      const read = sources[i]();
      if (read !== lastReads[i] || !Object.isFrozen(read)) unchanged = false;
      lastReads[i] = read;
    }
    lastReads.length = sources.length;
    if (unchanged) return;
    const current = lastReads.length === 1 ? lastReads[0] : lastReads.flat();
    if (current.length === this.lastSource.length && current.every((s, i) => s === this.lastSource[i])) return;
    // A copy unless frozen: a source may change the array it returned and return it again.
    this.lastSource = Object.isFrozen(current) ? current : [...current];
    this.secrets = Object.freeze([...new Set(current.filter((s): s is string => typeof s === 'string' && s.length >= 4))].sort((a, b) => b.length - a.length));
  }

  text(value: string): string {
    this.refresh();
    return this.maskText(value);
  }

  /** The value with every string in it masked (the secrets are read once per call). */
  value(value: unknown): unknown {
    this.refresh();
    return this.maskValue(value, 0);
  }

  private maskText(value: string): string {
    // Core's rules: whole keys and any 8+ character piece (any case, URL-encoded), known key shapes, bearer tokens.
    return redactSecrets(value, this.secrets);
  }

  /** `parent`: the field the value sits in (an array passes its own on to its items). */
  private maskValue(value: unknown, depth: number, parent?: string): unknown {
    if (typeof value === 'string') return this.maskText(value);
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
    if (isSwitchyardError(value)) return this.maskValue(value.summary(), depth + 1);
    if (value instanceof Error) return this.maskValue({ type: value.name, message: value.message, stack: value.stack, ...(value as unknown as Record<string, unknown>) }, depth + 1);
    if (Array.isArray(value)) return value.map((v) => this.maskValue(v, depth + 1, parent));
    const out: Record<string, unknown> = {};
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const field = (value as Record<string, unknown>)[key];
      if (field !== undefined && MAYBE_SENSITIVE.test(key) && isSensitive(key.toLowerCase(), parent)) out[key] = REDACTED;
      else out[key] = typeof field === 'object' || typeof field === 'string' ? this.maskValue(field, depth + 1, key) : field;
    }
    return out;
  }
}

/** The secrets a pipeline holds: its endpoints' vendor keys and extra headers. */
export function pipelineSecrets(pipeline: Pipeline | undefined): string[] {
  const out: string[] = [];
  for (const endpoint of pipeline?.endpoints ?? []) {
    if (endpoint.apiKey) out.push(endpoint.apiKey);
    for (const key of endpoint.apiKeys ?? []) out.push(key);
    // A header value as long as a key fragment is treated as a secret (core masks any such piece of it).
    for (const value of Object.values(endpoint.headers ?? {})) if (value.length >= SECRET_FRAGMENT_LENGTH) out.push(value);
  }
  return out;
}

/**
 * A gateway's secrets (its keys, its pipeline's, the caller's) as one frozen list, rebuilt only
 * when one of the three changed (a reload): a masker reads it on every log call and skips the
 * work when it gets the same frozen list back.
 */
export function gatewaySecrets(parts: () => [apiKeys: readonly string[], pipeline: Pipeline | undefined, extra: readonly string[] | undefined]): () => readonly string[] {
  let last: { apiKeys: readonly string[]; pipeline: Pipeline | undefined; extra: readonly string[] | undefined; list: readonly string[] } | undefined;
  return () => {
    const [apiKeys, pipeline, extra] = parts();
    if (last?.apiKeys !== apiKeys || last.pipeline !== pipeline || last.extra !== extra || (extra !== undefined && !Object.isFrozen(extra))) {
      last = { apiKeys, pipeline, extra, list: Object.freeze([...apiKeys, ...pipelineSecrets(pipeline), ...(extra ?? [])]) };
    }
    return last.list;
  };
}

/**
 * Marks a logger that masks every call itself (the `switchyard serve` logger): its masker. A
 * gateway given such a logger adds its own secrets to that masker instead of masking each line
 * a second time.
 */
export const LOGGER_MASKER = Symbol.for('switchyard.logger-masker');

/** The masker a logger masks every call with, if it says so (`LOGGER_MASKER`). */
export function maskerOf(logger: object): SecretMasker | undefined {
  const masker = (logger as { [LOGGER_MASKER]?: unknown })[LOGGER_MASKER];
  return masker instanceof SecretMasker ? masker : undefined;
}

/** A logger whose fields and message are masked before the host logger sees them. */
export function maskingLogger(logger: Logger, masker: SecretMasker): Logger {
  const wrap = (method: ((fields: LogFields, message?: string) => void) | undefined) =>
    method ? (fields: LogFields, message?: string) => method.call(logger, masker.value(fields) as LogFields, message === undefined ? undefined : masker.text(message)) : undefined;
  return { info: wrap(logger.info)!, warn: wrap(logger.warn)!, error: wrap(logger.error)!, debug: wrap(logger.debug) };
}
