/**
 * A Messages request sent on as the client wrote it. The gateway's Messages ingress keeps the
 * client's body beside the unified request (core's request-origin.ts); only what routing
 * decides changes here, the upstream model and the stream flag, so everything the unified shape
 * does not model (cache_control, citations, server tools, signed thinking, beta fields) reaches
 * Anthropic untouched.
 */
import { type ChatRequest } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, requestOriginOf, withModelReplaced, type RequestOrigin } from '@switchyard/core/wire';

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

/**
 * `passThroughBody` as JSON text without serializing the body again: the client's own text with
 * the upstream model spliced in (core's model-splice.ts), when the origin has its text and it
 * already says what the attempt sends about streaming (`"stream": true` for a stream; no stream
 * flag, or false, otherwise). Undefined when that does not hold: the caller serializes. A
 * Claude Code request is tens to hundreds of KB of system prompt, tools and history; this
 * sends it without copying it through `JSON.stringify`.
 */
export function passThroughText(origin: RequestOrigin, model: string, stream: boolean): string | undefined {
  const flag = origin.body.stream;
  if (origin.text === undefined || typeof origin.body.model !== 'string' || (stream ? flag !== true : flag !== undefined && flag !== false)) return undefined;
  return withModelReplaced(origin.text, origin.body.model, model);
}
