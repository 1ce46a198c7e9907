/**
 * A Messages request sent on as the client wrote it. The gateway's Messages ingress keeps the
 * client's body beside the unified request (core's request-origin.ts); only what routing
 * decides changes here, the upstream model and the stream flag, so everything the unified shape
 * does not model (cache_control, citations, server tools, signed thinking, beta fields) reaches
 * Anthropic untouched.
 */
import { type ChatRequest } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, requestOriginOf, type RequestOrigin } from '@switchyard/core/wire';

/** The client's Messages request behind `request`, when it came in that dialect. */
export function messagesOrigin(request: ChatRequest): RequestOrigin | undefined {
  return requestOriginOf(request, ANTHROPIC_MESSAGES);
}

/** The client's body with the upstream model and this attempt's stream flag (fields copied, not spread: see core's copy-fields). */
export function passThroughBody(body: Readonly<Record<string, unknown>>, model: string, stream: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { model };
  for (const key in body) {
    if (key === 'model' || key === 'stream' || !Object.hasOwn(body, key)) continue;
    out[key] = body[key];
  }
  if (stream) out.stream = true;
  return out;
}
