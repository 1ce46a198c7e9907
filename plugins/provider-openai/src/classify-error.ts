/**
 * OpenAI-family failures → SwitchyardError. The kind is decided on the status AND the body's
 * code/type (a 429 `insufficient_quota` is a billing failure, not a rate limit), for every body
 * shape the family sends: `{error:{…}}`, vLLM's flat `{object:'error', code:int}`, a bare
 * `{error:'text'}`, and non-JSON pages from CDNs and gateways.
 */
import { httpError, SwitchyardError, type ErrorKind } from '@switchyard/core';
import { bodyCodes, bodyExcerpt, isContextLengthMessage, kindForStatus, redactSecrets } from '@switchyard/core/wire';
import { findRule, type ErrorRule } from '@switchyard/core/internal';
import { asWireBody, type WireErrorObject } from './wire-types.js';

export interface VendorErrorDetails {
  message: string;
  /** The vendor's `code` (stringified when vLLM sends a number) or, failing that, its `type`. */
  vendorCode?: string;
  /** Every code-like string the body carries, for matching. */
  codes: string[];
  /** A numeric `code` or `status` inside the body (vLLM, OpenRouter mid-stream errors). */
  bodyStatus?: number;
  type?: string;
  param?: string;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

function errorObjectOf(json: unknown): WireErrorObject | string | undefined {
  const body = asWireBody(json);
  if (!body) return undefined;
  if (typeof body.error === 'string' || (typeof body.error === 'object' && body.error !== null)) return body.error;
  // vLLM (older) and some proxies: the error fields sit at the top level.
  if (body.object === 'error' || typeof body.message === 'string') return body as WireErrorObject;
  return undefined;
}

export function readErrorBody(json: unknown, text: string): VendorErrorDetails {
  const error = errorObjectOf(json);
  if (error === undefined) {
    const excerpt = bodyExcerpt(text);
    return { message: json === undefined && text.length > 0 ? `non-JSON body: ${excerpt}` : excerpt, codes: [] };
  }
  if (typeof error === 'string') return { message: error, codes: [] };
  const code = typeof error.code === 'number' ? String(error.code) : str(error.code);
  const type = str(error.type);
  const inner = str(error.innererror?.code);
  const numeric = typeof error.code === 'number' ? error.code : typeof error.status === 'number' ? error.status : undefined;
  return {
    message: str(error.message) ?? bodyExcerpt(text),
    vendorCode: typeof error.code === 'number' ? (type ?? code) : (code ?? type),
    codes: [code, type, inner].filter((c): c is string => c !== undefined),
    bodyStatus: numeric !== undefined && numeric >= 400 && numeric < 600 ? numeric : undefined,
    ...(type ? { type } : {}),
    ...(str(error.param) ? { param: str(error.param) } : {}),
  };
}

const CONTENT_FILTER_CODES = new Set(['content_filter', 'content_policy_violation', 'ResponsibleAIPolicyViolation']);
const NOT_FOUND_CODES = new Set(['model_not_found', 'DeploymentNotFound', 'deployment_not_found']);
const AUTH_CODES = new Set(['invalid_api_key', 'invalid_authentication', 'unauthorized']);
const RATE_LIMIT_CODES = new Set(['rate_limit_exceeded', 'rate_limit_error', 'requests', 'tokens']);
const OVERLOAD_CODES = new Set(['overloaded', 'overloaded_error', 'server_overloaded', 'engine_overloaded', 'slow_down']);
/** Statuses where a "too many tokens" message means the prompt, not a per-minute budget. */
const REQUEST_STATUSES = new Set([400, 413, 422]);

function kindFor(status: number | undefined, details: VendorErrorDetails, rules?: readonly ErrorRule[], json?: unknown, text = ''): ErrorKind {
  const vendorRule = findRule(rules, { status, codes: [...details.codes, ...bodyCodes(json)], text: `${text}\n${details.message}` });
  if (vendorRule) return vendorRule.kind;
  const has = (set: Set<string>) => details.codes.some((c) => set.has(c));
  if (details.codes.includes('insufficient_quota')) return 'payment';
  if (has(CONTENT_FILTER_CODES)) return 'content-filter';
  if ((status === undefined || REQUEST_STATUSES.has(status)) && isContextLengthMessage(details.message, details.codes[0])) return 'context-length';
  // A 404 naming a field of the request (a stored item or response the vendor does not have) is the request's fault: the client gets it.
  if (status === 404 && details.param && !has(NOT_FOUND_CODES)) return 'bad-request';
  if (has(NOT_FOUND_CODES) || status === 404) return 'not-found';
  if (status === 402 || /insufficient balance/i.test(details.message)) return 'payment';
  if (has(AUTH_CODES)) return 'auth';
  if (status !== undefined) return kindForStatus(status);
  if (has(RATE_LIMIT_CODES)) return 'rate-limit';
  if (has(OVERLOAD_CODES)) return 'overloaded';
  return 'server';
}

/** Azure (and a few proxies) only say it in prose: "Please retry after 20 seconds." */
function retryAfterFromMessage(message: string): number | undefined {
  const m = /retry after (\d+(?:\.\d+)?) ?(?:seconds?|s)\b/i.exec(message);
  return m ? Number(m[1]) * 1000 : undefined;
}

export interface ClassifyInput {
  provider: string;
  status: number;
  headers: Record<string, string>;
  json: unknown;
  text: string;
  apiKey?: string;
  /** The vendor's error table, before the generic rules. */
  rules?: readonly ErrorRule[];
}

/** A failed HTTP exchange. */
export function classifyHttpError(input: ClassifyInput): SwitchyardError {
  const details = readErrorBody(input.json, input.text);
  const message = redactSecrets(details.message, [input.apiKey]);
  let kind = kindFor(input.status, details, input.rules, input.json, input.text);
  // The vendor says a retry will help: count it as the endpoint's failure, not the request's.
  if (kind === 'bad-request' && input.headers['x-should-retry'] === 'true') kind = 'server';
  return httpError({
    status: input.status,
    headers: input.headers,
    message,
    vendorCode: details.vendorCode,
    vendorType: details.type,
    param: details.param,
    kind,
    provider: input.provider,
    retryAfterMs: kind === 'rate-limit' && !hasRetryHeader(input.headers) ? retryAfterFromMessage(message) : undefined,
  });
}

function hasRetryHeader(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((k) => k === 'retry-after' || k === 'retry-after-ms' || k.startsWith('x-ratelimit-reset-'));
}

/** An error delivered inside an HTTP 200 stream (`data: {"error":…}` or `event: error`). */
export function classifyStreamError(provider: string, json: unknown, apiKey?: string, rules?: readonly ErrorRule[]): SwitchyardError {
  const text = typeof json === 'string' ? json : JSON.stringify(json) ?? '';
  const details = readErrorBody(json, text);
  const kind = kindFor(details.bodyStatus, details, rules, json, text);
  return new SwitchyardError(kind, `${provider} stream failed: ${redactSecrets(details.message, [apiKey])}`, {
    status: details.bodyStatus,
    vendorCode: details.vendorCode,
    provider,
  });
}
