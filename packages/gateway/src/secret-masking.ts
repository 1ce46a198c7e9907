/**
 * The one serializer every gateway log line, status answer and metric label passes through:
 * every configured key value, and any 8+ character piece of one, is masked wherever it occurs,
 * because vendors echo keys in their error text.
 */
import { isSwitchyardError, type Pipeline } from '@switchyard/core';
import { addFields } from '@switchyard/core/internal';
import { redactSecrets, REDACTED, SECRET_FRAGMENT_LENGTH } from '@switchyard/core/wire';
import type { Logger, LogFields } from './logger.js';

const MAX_DEPTH = 6;
/** Log lines repeat most of their strings and field names: what was checked is remembered, this many at most. */
const REMEMBERED_MAX = 1024;
/** Longer strings (messages, stacks) are masked every time: remembering them would hold them in memory. */
const REMEMBERED_LENGTH_MAX = 256;

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
type OwnTextSource = () => readonly string[];

/** Fields whose value is new in every line (request ids): masked but never remembered as clean. */
export const UNIQUE_FIELDS: ReadonlySet<string> = new Set(['requestId']);

/**
 * What each of a list of sources returned last time. `changed()` calls them all again: a source
 * that returned the same frozen array as before has not changed. Freezing cannot be undone, so an
 * array is tested for it once, not on every log line.
 */
class SourceReads<T extends readonly unknown[]> {
  readonly values: T[] = [];
  private readonly frozen: boolean[] = [];

  constructor(private readonly sources: readonly (() => T)[]) {}

  changed(): boolean {
    const { sources, values, frozen } = this;
    let changed = sources.length !== values.length;
    if (changed) values.length = frozen.length = sources.length;
    for (let i = 0; i < sources.length; i++) {
      const read = sources[i]();
      if (read === values[i] && frozen[i]) continue;
      values[i] = read;
      frozen[i] = Object.isFrozen(read);
      changed = true;
    }
    return changed;
  }
}

/** Masks known secrets in text and in any value built of objects, arrays and strings. */
export class SecretMasker {
  private secrets: readonly string[] = [];
  private lastSource: readonly (string | undefined)[] = [];
  private readonly sources: SecretSource[];
  private readonly reads: SourceReads<readonly (string | undefined)[]>;
  /**
   * Strings the current secrets left unchanged (event names, routes, models, endpoints): an
   * access line repeats most of its strings, and masking one is a scan per rule. Only strings
   * with nothing to mask are kept, so this never holds a secret; a change of secrets empties it.
   */
  private readonly clean = new Set<string>();
  /** Field names and whether they may be credential fields (`MAYBE_SENSITIVE`). */
  private readonly fieldNames = new Map<string, boolean>();

  /** The words the gateway writes itself (endpoint and model names): a key fragment among them is not masked. */
  private readonly ownTextSources: OwnTextSource[] = [];
  private ownText: readonly string[] | undefined;
  private readonly ownReads: SourceReads<readonly string[]>;

  constructor(source: SecretSource, ownText?: OwnTextSource) {
    this.sources = [source];
    if (ownText) this.ownTextSources.push(ownText);
    this.reads = new SourceReads(this.sources);
    this.ownReads = new SourceReads(this.ownTextSources);
  }

  /** Masks these secrets too (a gateway logging through a logger that masks), sparing its own words; returns the removal. */
  addSource(source: SecretSource, ownText?: OwnTextSource): () => void {
    this.sources.push(source);
    if (ownText) this.ownTextSources.push(ownText);
    return () => {
      const at = this.sources.indexOf(source);
      if (at > 0) this.sources.splice(at, 1);
      const own = ownText ? this.ownTextSources.indexOf(ownText) : -1;
      if (own >= 0) this.ownTextSources.splice(own, 1);
    };
  }

  /** Reads the own-text sources again; a change forgets the strings remembered clean. */
  private refreshOwnText(): void {
    if (!this.ownReads.changed()) return;
    const current = [...new Set(this.ownReads.values.flat())];
    if (this.ownText && current.length === this.ownText.length && current.every((s, i) => s === this.ownText![i])) return;
    this.ownText = current.length ? Object.freeze(current) : undefined;
    this.clean.clear();
  }

  /**
   * Reads the secrets again; the sorted list is rebuilt only when they changed (a reload). A
   * source that returns the same frozen array as last time has not changed, so that read costs
   * nothing; any other read is compared element by element.
   */
  private refresh(): void {
    this.refreshOwnText();
    if (!this.reads.changed()) return;
    const reads = this.reads.values;
    const current = reads.length === 1 ? reads[0] : reads.flat();
    if (current.length === this.lastSource.length && current.every((s, i) => s === this.lastSource[i])) return;
    // A copy unless frozen: a source may change the array it returned and return it again.
    this.lastSource = Object.isFrozen(current) ? current : [...current];
    this.secrets = Object.freeze([...new Set(current.filter((s): s is string => typeof s === 'string' && s.length >= 4))].sort((a, b) => b.length - a.length));
    this.clean.clear();
  }

  text(value: string): string {
    this.refresh();
    return this.maskText(value);
  }

  /** Reads the secrets (a reload may have changed them) before a series of `maskedText` calls: one line's strings. */
  refreshSecrets(): void {
    this.refresh();
  }

  /**
   * `text()` without reading the secrets again (after `refreshSecrets()`). `unique`: the value
   * is new in every line (a request id): masked, never remembered, so the strings lines share
   * stay remembered instead of being pushed out by one new id per line.
   */
  maskedText(value: string, unique = false): string {
    if (!unique) return this.maskText(value);
    return this.clean.has(value) ? value : redactSecrets(value, this.secrets, this.ownText);
  }

  /** A top-level string field of a log line, as `value()` masks it: censored by its name, or masked (after `refreshSecrets()`). */
  maskedField(key: string, value: string): string {
    if (this.maybeSensitive(key) && isSensitive(key.toLowerCase(), undefined)) return REDACTED;
    return this.maskedText(value, UNIQUE_FIELDS.has(key));
  }

  /** The value with every string in it masked (the secrets are read once per call). */
  value(value: unknown): unknown {
    this.refresh();
    return this.maskValue(value, 0);
  }

  private maskText(value: string): string {
    const { clean } = this;
    if (clean.has(value)) return value;
    // Core's rules: whole keys and any 8+ character piece (any case, URL-encoded), known key shapes, bearer tokens.
    const masked = redactSecrets(value, this.secrets, this.ownText);
    if (masked === value && value.length <= REMEMBERED_LENGTH_MAX) {
      if (clean.size >= REMEMBERED_MAX) clean.clear();
      clean.add(value);
    }
    return masked;
  }

  private maybeSensitive(key: string): boolean {
    let maybe = this.fieldNames.get(key);
    if (maybe === undefined) {
      maybe = MAYBE_SENSITIVE.test(key);
      if (this.fieldNames.size >= REMEMBERED_MAX) this.fieldNames.clear();
      this.fieldNames.set(key, maybe);
    }
    return maybe;
  }

  /**
   * `parent`: the field the value sits in (an array passes its own on to its items). An object
   * or array with nothing to mask comes back as it is: a copy is made at the first change.
   */
  private maskValue(value: unknown, depth: number, parent?: string): unknown {
    if (typeof value === 'string') return parent !== undefined && UNIQUE_FIELDS.has(parent) ? redactSecrets(value, this.secrets, this.ownText) : this.maskText(value);
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
    if (isSwitchyardError(value)) return this.maskValue(value.summary(), depth + 1);
    if (value instanceof Error) return this.maskValue({ type: value.name, message: value.message, stack: value.stack, ...(value as unknown as Record<string, unknown>) }, depth + 1);
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const masked = this.maskValue(item, depth + 1, parent);
        if (masked !== item) (copy ??= value.slice())[i] = masked;
      }
      return copy ?? value;
    }
    const fields = value as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    let inherited = false;
    for (const key in fields) {
      if (!Object.hasOwn(fields, key)) {
        inherited = true;
        continue;
      }
      const field = fields[key];
      let masked: unknown;
      if (field !== undefined && this.maybeSensitive(key) && isSensitive(key.toLowerCase(), parent)) masked = REDACTED;
      else masked = typeof field === 'object' || typeof field === 'string' ? this.maskValue(field, depth + 1, key) : field;
      if (masked !== field) (copy ??= addFields<Record<string, unknown>>({}, fields))[key] = masked;
    }
    // A class instance or an object with inherited fields comes back as a plain object of its own fields, as before.
    return copy ?? (inherited || !isPlain(fields) ? addFields({}, fields) : fields);
  }
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
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

/** The names a pipeline's lines carry (endpoints, models, upstream models, plugins): a key fragment among them is not masked. */
export function pipelineOwnText(pipeline: Pipeline | undefined): string[] {
  const out = new Set<string>();
  for (const endpoint of pipeline?.endpoints ?? []) {
    out.add(endpoint.name);
    if (endpoint.provider) out.add(endpoint.provider);
  }
  for (const [model, deployments] of Object.entries(pipeline?.models ?? {})) {
    out.add(model);
    for (const deployment of deployments) if (deployment.model) out.add(deployment.model);
  }
  return [...out];
}

/** `pipelineOwnText` of the pipeline in use, as one frozen list rebuilt only when the pipeline changed (a reload). */
export function gatewayOwnText(pipeline: () => Pipeline | undefined): () => readonly string[] {
  let last: { pipeline: Pipeline | undefined; list: readonly string[] } | undefined;
  return () => {
    const current = pipeline();
    if (!last || last.pipeline !== current) last = { pipeline: current, list: Object.freeze(pipelineOwnText(current)) };
    return last.list;
  };
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
