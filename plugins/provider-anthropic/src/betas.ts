/**
 * Per-deployment allow-lists of `anthropic-beta` values. A channel refuses a request that names a
 * beta it does not take (Bedrock, Vertex: "invalid beta flag"), which is how Claude Code breaks
 * behind gateways that forward its betas; an operator may also keep a beta off a deployment (a
 * feature its price table does not know). A beta not on the list is dropped, with the body
 * fields it turns on (a field whose beta is gone would be refused), and the drop is disclosed
 * (`ProviderV1.drops`: the answer's `dropped`, `x-switchyard-dropped`, `field:dropped`).
 *
 * The list is the endpoint's `options.anthropicBetas` (`["*"]`: every beta), else the channel's
 * default: on Anthropic's own API (and Claude on Foundry), ANTHROPIC_DEFAULT_BETAS.
 */
import type { Candidate, ChatRequest, EndpointConfig } from '@switchyard/core';
import type { DroppedPart } from '@switchyard/core/wire';
import { messagesOrigin } from './pass-through.js';

/**
 * The betas Anthropic's own API gets without configuration: those current Claude Code and the
 * SDKs send whose calls bill at the token prices of the price table (an output bound is still
 * `max_tokens`; a server tool a beta enables is priced per call or refused for a budgeted key by
 * plugin-tenants). Left out, so dropped and disclosed unless an endpoint lists them: betas that
 * change what a call costs beyond those prices, which a reservation could not bound —
 * `context-1m-2025-08-07` (every token at premium rates past 200k prompt tokens: billed and
 * reserved right only where the deployment's price has its `longContext` tier, as plugin-quota's
 * built-in Claude Sonnet prices do; list it in `anthropicBetas` to allow it),
 * `fast-mode-2026-02-01` (premium rates), `extended-cache-ttl-2025-04-11` (1-hour cache writes at
 * 2× input), `advisor-tool-2026-03-01` (another model's tokens) — and every beta not known here
 * (a new beta may be a priced feature). Dated: Anthropic's beta list as of 2025-11.
 */
export const ANTHROPIC_DEFAULT_BETAS: ReadonlySet<string> = new Set([
  // Claude Code (its identity, OAuth sign-in, streaming and thinking betas).
  'claude-code-20250219',
  'oauth-2025-04-20',
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
  // The SDKs' typed betas that bill at token prices.
  'prompt-caching-2024-07-31',
  'pdfs-2024-09-25',
  'token-counting-2024-11-01',
  'token-efficient-tools-2025-02-19',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'structured-outputs-2025-11-13',
  'files-api-2025-04-14',
  'mcp-client-2025-04-04',
  'code-execution-2025-05-22',
  'web-fetch-2025-09-10',
]);

/** Body fields a beta turns on, dropped with it. */
export const BETA_FIELDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'context-management-2025-06-27': ['context_management'],
  'mcp-client-2025-04-04': ['mcp_servers'],
});

const configured = new WeakMap<EndpointConfig, ReadonlySet<string> | null>();

/** The betas `endpoint` takes; undefined: every one. */
export function allowedBetas(endpoint: EndpointConfig, defaults?: ReadonlySet<string>): ReadonlySet<string> | undefined {
  const list = endpoint.options?.anthropicBetas;
  if (!Array.isArray(list)) return defaults;
  let set = configured.get(endpoint);
  if (set === undefined) {
    set = list.includes('*') ? null : new Set(list.filter((b): b is string => typeof b === 'string'));
    configured.set(endpoint, set);
  }
  return set ?? undefined;
}

/** The `anthropic-beta` values of a Messages client's request. */
export function clientBetas(request: ChatRequest): string[] {
  const header = messagesOrigin(request)?.headers?.['anthropic-beta'];
  return header ? header.split(',').map((b) => b.trim()).filter(Boolean) : [];
}

export interface BetaSplit {
  kept: string[];
  refused: string[];
  /** Top-level body fields the refused betas turned on. */
  fields: string[];
}

export function splitBetas(betas: readonly string[], allowed: ReadonlySet<string> | undefined): BetaSplit {
  if (!allowed) return { kept: [...betas], refused: [], fields: [] };
  const kept: string[] = [];
  const refused: string[] = [];
  const fields: string[] = [];
  for (const beta of betas) {
    if (allowed.has(beta)) kept.push(beta);
    else {
      refused.push(beta);
      for (const field of BETA_FIELDS[beta] ?? []) if (!fields.includes(field)) fields.push(field);
    }
  }
  return { kept, refused, fields };
}

/** `body` without `fields` (a copy when any is there). */
export function withoutFields(body: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  if (!fields.some((f) => Object.hasOwn(body, f))) return body;
  const out: Record<string, unknown> = {};
  for (const key in body) if (Object.hasOwn(body, key) && !fields.includes(key)) out[key] = body[key];
  return out;
}

/** What a deployment is sent without: each refused beta, and each field of the client's body it turned on. */
export function betaDrops(request: ChatRequest, target: Candidate, defaults?: ReadonlySet<string>): readonly DroppedPart[] | undefined {
  const betas = clientBetas(request);
  if (betas.length === 0) return undefined;
  const { refused, fields } = splitBetas(betas, allowedBetas(target.endpoint, defaults));
  if (refused.length === 0) return undefined;
  const body = messagesOrigin(request)?.body ?? {};
  const dropped: DroppedPart[] = refused.map((beta) => ({ path: 'anthropic-beta', what: `the beta ${beta}, which ${target.deploymentId} does not take`, feature: `anthropic-beta:${beta}` }));
  for (const field of fields) if (Object.hasOwn(body, field)) dropped.push({ path: field, what: `${field}, which needs a dropped beta`, feature: field });
  return dropped;
}
