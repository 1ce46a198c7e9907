/**
 * Per-deployment allow-lists of `anthropic-beta` values. A channel refuses a request that names a
 * beta it does not take (Bedrock, Vertex: "invalid beta flag"), which is how Claude Code breaks
 * behind gateways that forward its betas; an operator may also keep a beta off a deployment (a
 * feature its price table does not know). A beta not on the list is dropped, with the body
 * fields it turns on (a field whose beta is gone would be refused), and the drop is disclosed
 * (`ProviderV1.drops`: the answer's `dropped`, `x-switchyard-dropped`, `field:dropped`).
 *
 * The list is the endpoint's `options.anthropicBetas` (`["*"]`: every beta), else the channel's
 * default (none on Anthropic's own API: it takes every beta it made).
 */
import type { Candidate, ChatRequest, EndpointConfig } from '@switchyard/core';
import type { DroppedPart } from '@switchyard/core/wire';
import { messagesOrigin } from './pass-through.js';

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
