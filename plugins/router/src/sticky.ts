/** Sticky routing: a conversation keeps the deployment that answered it (prompt-cache locality). */
import type { ChatRequest, RequestContext } from '@switchyard/core';

export function conversationKey(ctx: RequestContext): string | undefined {
  if (ctx.kind !== 'chat') return undefined;
  const request = ctx.request as ChatRequest;
  const key = request.switchyard?.conversationId ?? request.user;
  return typeof key === 'string' && key.length > 0 ? `switchyard:router:sticky:${ctx.model}:${key}` : undefined;
}
