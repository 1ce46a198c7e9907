/**
 * Prompt-cache affinity: which conversation a request belongs to, so it keeps the deployment
 * that answered its previous turn (that deployment holds its prompt cache; another one rebuilds
 * it at full input price). The identity is, in order: `switchyard.conversationId`; the session
 * the caller names (`CallOptions.sessionId`: the gateway reads Claude Code's
 * `X-Claude-Code-Session-Id`), or the session id an agent puts in `user` (Claude Code's
 * `metadata.user_id` carries `…_session_<uuid>` or a JSON `session_id`); `prompt_cache_key` (Codex sends its conversation id there); `user`; and
 * without any of these, a hash of the prompt up to its first `cache_control` breakpoint (system
 * prompt and tools: the part every turn shares, where the last breakpoint moves every turn).
 *
 * Keys are scoped by the caller's gateway key and the logical model, and the identity is
 * hashed: one tenant can neither read nor overwrite another's pin, and no client id is stored.
 */
import { createHash } from 'node:crypto';
import type { ConversationSource } from '@switchyard/contracts';
import type { ChatRequest, RequestContext } from '@switchyard/core';
import { requestOriginOf } from '@switchyard/core/wire';

export interface Conversation {
  /** The state-store key of the pin. */
  key: string;
  source: ConversationSource;
}

/** `…_session_<uuid>` or a JSON `"session_id":"<uuid>"` inside `user`. */
const SESSION_IN_USER = /session(?:[_-]?id)?["']?\s*[:=_]\s*["']?([0-9a-zA-Z-]+)/i;

export function conversationOf(ctx: RequestContext, prefix: boolean): Conversation | undefined {
  if (ctx.kind !== 'chat') return undefined;
  const request = ctx.request as ChatRequest;
  const origin = requestOriginOf(request)?.body;
  const found = identity(request, origin, prefix, ctx.sessionId);
  if (!found) return undefined;
  const scope = ctx.caller?.keyId ?? '';
  const digest = createHash('sha256').update(`${scope}\u0000${ctx.model}\u0000${found.id}`).digest('base64url').slice(0, 32);
  return { key: `switchyard:router:sticky:${digest}`, source: found.source };
}

function identity(request: ChatRequest, origin: Readonly<Record<string, unknown>> | undefined, prefix: boolean, sessionId: string | undefined): { id: string; source: ConversationSource } | undefined {
  const conversationId = request.switchyard?.conversationId;
  if (nonEmpty(conversationId)) return { id: `c:${conversationId}`, source: 'conversation-id' };
  const user = request.user;
  // A session header (CallOptions.sessionId) and a session id inside `user` name the same session.
  const session = nonEmpty(sessionId) ? sessionId : nonEmpty(user) ? SESSION_IN_USER.exec(user)?.[1] : undefined;
  if (session) return { id: `s:${session}`, source: 'session' };
  const cacheKey = origin?.prompt_cache_key ?? (request as { prompt_cache_key?: unknown }).prompt_cache_key;
  if (nonEmpty(cacheKey)) return { id: `k:${cacheKey}`, source: 'prompt-cache-key' };
  if (nonEmpty(user)) return { id: `u:${user}`, source: 'user' };
  if (!prefix || !origin) return undefined;
  const cached = cachedPrefix(origin);
  return cached === undefined ? undefined : { id: `p:${createHash('sha256').update(cached).digest('base64url')}`, source: 'prefix' };
}

/**
 * The prompt up to its first `cache_control` breakpoint (Anthropic's order: tools, system,
 * messages), as JSON text; undefined when the request marks no breakpoint.
 */
export function cachedPrefix(body: Readonly<Record<string, unknown>>): string | undefined {
  const parts: unknown[] = [];
  for (const section of ['tools', 'system', 'messages'] as const) {
    const value = body[section];
    const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
    for (const item of items) {
      parts.push(item);
      if (marksBreakpoint(item)) return JSON.stringify(parts);
    }
  }
  return undefined;
}

function marksBreakpoint(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  if ('cache_control' in item && item.cache_control) return true;
  const content = (item as { content?: unknown }).content;
  return Array.isArray(content) && content.some((part) => typeof part === 'object' && part !== null && 'cache_control' in part && Boolean(part.cache_control));
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
