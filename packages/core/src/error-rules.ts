/**
 * Error rules: `{ status?, code?, match?, kind }` entries that re-classify a vendor's failure
 * without code. An endpoint's `errors:` (config) run before its provider's own table, so a user
 * can fix any vendor's classification; providers use the same rules for their vendor tables.
 *
 * - `status`: the HTTP status must equal it;
 * - `code`: one of the body's code-like strings (`error.code`, `error.type`, a top-level `code`,
 *   a numeric business code as text) must equal it (case-insensitive); a trailing `*` matches a
 *   prefix (`Throttling.*`);
 * - `match`: the body text must contain it (case-insensitive), or match it when written `/re/flags`.
 * Every given field must hold; the first matching rule wins.
 */
import { z } from 'zod';
import { SwitchyardError, type ErrorKind } from './errors.js';

/** The kinds a rule may assign: what a vendor answer can mean. */
export const RULE_KINDS = ['auth', 'payment', 'rate-limit', 'overloaded', 'server', 'bad-request', 'context-length', 'content-filter', 'not-found', 'timeout'] as const satisfies readonly ErrorKind[];

function regexOf(text: string): RegExp | undefined {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(text);
  if (!m) return undefined;
  return new RegExp(m[1], m[2].includes('i') ? m[2] : `${m[2]}i`);
}

function isValidMatch(text: string): boolean {
  try {
    regexOf(text);
    return true;
  } catch {
    return false;
  }
}

export const errorRuleSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    code: z.string().min(1).optional(),
    match: z.string().min(1).refine(isValidMatch, { message: 'not a valid /regular expression/' }).optional(),
    kind: z.enum(RULE_KINDS, { message: `expected one of ${RULE_KINDS.join(', ')}` }),
  })
  .strict()
  .refine((r) => r.status !== undefined || r.code !== undefined || r.match !== undefined, { message: 'an error rule needs at least one of status, code or match' });

export type ErrorRule = z.output<typeof errorRuleSchema>;

export interface RuleSubject {
  status?: number;
  /** Code-like strings from the body. */
  codes: readonly string[];
  /** The body text (and message) the `match` field is tested against. */
  text: string;
}

const CODE_FIELDS = ['code', 'type', 'error_code', 'status'];

/** Every code-like string an error body carries, at the top level and under `error`. */
export function bodyCodes(json: unknown): string[] {
  const out: string[] = [];
  const take = (obj: unknown) => {
    if (!obj || typeof obj !== 'object') return;
    for (const field of CODE_FIELDS) {
      const v = (obj as Record<string, unknown>)[field];
      if (typeof v === 'string' && v) out.push(v);
      else if (typeof v === 'number' && Number.isFinite(v)) out.push(String(v));
    }
  };
  take(json);
  take((json as { error?: unknown } | undefined)?.error);
  return out;
}

function codeMatches(pattern: string, codes: readonly string[]): boolean {
  const p = pattern.toLowerCase();
  if (p.endsWith('*')) return codes.some((c) => c.toLowerCase().startsWith(p.slice(0, -1)));
  return codes.some((c) => c.toLowerCase() === p);
}

export function ruleMatches(rule: Omit<ErrorRule, 'kind'>, subject: RuleSubject): boolean {
  if (rule.status !== undefined && rule.status !== subject.status) return false;
  if (rule.code !== undefined && !codeMatches(rule.code, subject.codes)) return false;
  if (rule.match !== undefined) {
    const re = regexOf(rule.match);
    if (re ? !re.test(subject.text) : !subject.text.toLowerCase().includes(rule.match.toLowerCase())) return false;
  }
  return true;
}

export function findRule<R extends Omit<ErrorRule, 'kind'>>(rules: readonly R[] | undefined, subject: RuleSubject): R | undefined {
  return rules?.find((rule) => ruleMatches(rule, subject));
}

/** Re-kinds a classified error when one of the endpoint's rules matches the answer. */
export function applyErrorRules(rules: readonly ErrorRule[] | undefined, http: { status: number; json: unknown; text: string }, error: SwitchyardError): SwitchyardError {
  if (!rules?.length) return error;
  const rule = findRule(rules, { status: http.status, codes: [...bodyCodes(http.json), ...(error.vendorCode ? [error.vendorCode] : [])], text: `${http.text}\n${error.message}` });
  if (!rule || rule.kind === error.kind) return error;
  return new SwitchyardError(rule.kind, error.message, {
    status: error.status,
    retryAfterMs: error.retryAfterMs,
    provider: error.provider,
    vendorCode: error.vendorCode,
    vendorType: error.vendorType,
    param: error.param,
    headers: error.headers,
    cause: error,
  });
}
