/**
 * The cache key: a SHA-256 of the normalised request. Everything that can change the answer is
 * in it (model, messages, tools, sampling settings, unknown vendor fields); how the answer is
 * delivered (`stream`), who asked (`user`, `metadata`) and our own hints (`switchyard`) are not;
 * the caller's scope (per gateway key by default) is, so tenants never read each other's answers.
 */
import { createHash } from 'node:crypto';
import { type ChatRequest } from '@switchyard/core';
import { requestOriginOf } from '@switchyard/core/wire';

const DELIVERY_FIELDS = new Set(['stream', 'stream_options', 'user', 'metadata', 'switchyard', 'store', 'service_tier']);

/** A content array of text parts only says the same as their concatenation. */
function normaliseContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  if (content.every((p) => p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string')) {
    return content.map((p) => (p as { text: string }).text).join('');
  }
  return content;
}

/** JSON with sorted keys and without undefined values, so equal requests serialise equally. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

export function normaliseRequest(request: ChatRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(request)) {
    if (!DELIVERY_FIELDS.has(field)) out[field] = value;
  }
  out.messages = (request.messages ?? []).map((m) => ({ ...m, content: normaliseContent(m.content) }));
  if (typeof request.stop === 'string') out.stop = [request.stop];
  // A request that came in another dialect (the gateway's Messages API) may carry what the
  // unified shape cannot (a server tool, a search result, thinking settings), and a vendor of
  // that dialect gets all of it: its own body is part of the key too.
  const origin = requestOriginOf(request);
  if (origin) {
    const body: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(origin.body)) if (!DELIVERY_FIELDS.has(field)) body[field] = value;
    out['(origin)'] = { format: origin.format, body };
  }
  return out;
}

/**
 * `scope` names who may share the answer (cache-scope.ts): callers of different scopes never
 * get each other's answers, however equal their requests.
 */
export function cacheKey(request: ChatRequest, scope = ''): string {
  const hash = createHash('sha256');
  if (scope) hash.update(`${JSON.stringify(scope)}\n`);
  return hash.update(canonical(normaliseRequest(request))).digest('hex');
}
