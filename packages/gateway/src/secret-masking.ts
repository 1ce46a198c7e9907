/**
 * The one serializer every gateway log line, status answer and metric label passes through:
 * every configured key value, and any 8+ character piece of one, is masked wherever it occurs,
 * because vendors echo keys in their error text.
 */
import { isSwitchyardError, redactSecrets, type Pipeline } from '@switchyard/core';
import type { Logger, LogFields } from './logger.js';

/** Header values this long are treated as secrets (core masks any 8+ character piece of one). */
const FRAGMENT = 8;
const MAX_DEPTH = 6;

/** Masks known secrets in text and in any value built of objects, arrays and strings. */
export class SecretMasker {
  private secrets: string[] = [];

  constructor(private readonly source: () => readonly (string | undefined)[]) {}

  private refresh(): void {
    this.secrets = [...new Set(this.source().filter((s): s is string => typeof s === 'string' && s.length >= 4))].sort((a, b) => b.length - a.length);
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

  private maskValue(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.maskText(value);
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
    if (isSwitchyardError(value)) return this.maskValue(value.summary(), depth + 1);
    if (value instanceof Error) return this.maskValue({ type: value.name, message: value.message, ...(value as unknown as Record<string, unknown>) }, depth + 1);
    if (Array.isArray(value)) return value.map((v) => this.maskValue(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.maskValue(v, depth + 1);
    return out;
  }
}

/** The secrets a pipeline holds: its endpoints' vendor keys and extra headers. */
export function pipelineSecrets(pipeline: Pipeline | undefined): string[] {
  const out: string[] = [];
  for (const endpoint of pipeline?.endpoints ?? []) {
    if (endpoint.apiKey) out.push(endpoint.apiKey);
    for (const key of endpoint.apiKeys ?? []) out.push(key);
    for (const value of Object.values(endpoint.headers ?? {})) if (value.length >= FRAGMENT) out.push(value);
  }
  return out;
}

/** A logger whose fields and message are masked before the host logger sees them. */
export function maskingLogger(logger: Logger, masker: SecretMasker): Logger {
  const wrap = (method: ((fields: LogFields, message?: string) => void) | undefined) =>
    method ? (fields: LogFields, message?: string) => method.call(logger, masker.value(fields) as LogFields, message === undefined ? undefined : masker.text(message)) : undefined;
  return { info: wrap(logger.info)!, warn: wrap(logger.warn)!, error: wrap(logger.error)!, debug: wrap(logger.debug) };
}
