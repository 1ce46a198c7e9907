/**
 * OpenAI's continuation of a cut answer (ProviderV1.continuation). For a client of the Responses
 * API the continuation stays in its dialect: the client's body as it came (tools, instructions,
 * reasoning settings, the expanded conversation), with the partial answer as a trailing assistant
 * output message, so a deployment that speaks Responses is sent what the client wrote plus what
 * it already holds, and a Chat deployment is checked against the same body (its untranslatable
 * parts and hints) and sent the unified request with the same assistant turn last.
 *
 * The continuation is the gateway's own request: the client never sees its response id, so it is
 * asked with `store: false` (nothing at OpenAI to fetch or continue from), and it never names a
 * `previous_response_id` (state held by the cut deployment, or by none).
 *
 * Every other client (Chat, Messages) gets the core's unified prefill.
 */
import type { ChatRequest } from '@switchyard/core';
import { prefillRequest } from '@switchyard/core/internal';
import { OPENAI_RESPONSES, requestOriginOf, setRequestOrigin } from '@switchyard/core/wire';

/** The partial answer as a Responses input item: an assistant output message (no id: OpenAI would look it up). */
export function partialAnswerItem(partialText: string): Record<string, unknown> {
  return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: partialText, annotations: [] }] };
}

export function openaiContinuation(request: ChatRequest, partialText: string): ChatRequest {
  const origin = requestOriginOf(request, OPENAI_RESPONSES);
  if (!origin) return prefillRequest(request, partialText);
  const next: ChatRequest = { ...request, messages: [...request.messages, { role: 'assistant', content: partialText }] };
  const { previous_response_id: _state, ...body } = origin.body;
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
  // Changed, so no longer the client's text (model-splice.ts would send the old one).
  setRequestOrigin(next, { ...origin, text: undefined, body: { ...body, store: false, input: [...input, partialAnswerItem(partialText)] } });
  return next;
}
