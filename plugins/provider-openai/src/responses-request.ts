/**
 * The OpenAI Responses API as a second wire of the family. A request that came in that dialect
 * (the gateway's `POST /v1/responses`, core's request-origin.ts) goes to `{baseUrl}/responses`
 * as the client wrote it: only what routing changes is set (the upstream model, `stream`). The
 * client's own `store` goes on unchanged (OpenAI keeps what the client asked it to keep); the
 * gateway expands `previous_response_id` from its own store.
 * On for the `openai` provider; the endpoint option `responsesApi: true | false` turns it on
 * or off per endpoint (OpenAI-compatible servers and Azure's older API versions lack it).
 */
import { type Candidate, type ChatRequest } from '@switchyard/core';
import { originBodyFor, requestOriginOf, OPENAI_RESPONSES, type RequestOrigin, type SplicedBody } from '@switchyard/core/wire';

/** Fields of the client's body that are the gateway's, never the vendor's (the client's own `store` goes on as it is). */
const GATEWAY_FIELDS = new Set(['model', 'stream', 'previous_response_id', 'switchyard']);

export function responsesApiEnabled(target: Candidate, byDefault: boolean): boolean {
  const option = target.endpoint?.options?.responsesApi;
  return typeof option === 'boolean' ? option : byDefault;
}

/** The client's Responses request behind `request`, when this target sends it on as it is. */
export function responsesOrigin(request: ChatRequest, target: Candidate, byDefault: boolean): RequestOrigin | undefined {
  const origin = requestOriginOf(request, OPENAI_RESPONSES);
  return origin && responsesApiEnabled(target, byDefault) ? origin : undefined;
}

export function buildResponsesBody(origin: RequestOrigin, options: { model: string; stream: boolean }): Record<string, unknown> {
  const fields = origin.body;
  const body: Record<string, unknown> = {};
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined || GATEWAY_FIELDS.has(key) || !Object.hasOwn(fields, key)) continue;
    if (!options.stream && key === 'stream_options') continue;
    body[key] = value;
  }
  body.model = options.model;
  if (options.stream) body.stream = true;
  return body;
}

/**
 * `buildResponsesBody` as JSON text without serializing the body again (core's `originBodyFor`),
 * when it is what that would send anyway: the text names none of the gateway's own fields but the
 * model, and a call that does not stream has no `stream_options` to leave out. Undefined
 * otherwise: the caller serializes. A Codex request sends its whole conversation and tools every
 * turn (tens to hundreds of KB).
 */
export function responsesOwnBody(origin: RequestOrigin, options: { model: string; stream: boolean }): SplicedBody | undefined {
  const body = origin.body;
  if (body.previous_response_id !== undefined || body.switchyard !== undefined || (!options.stream && body.stream_options !== undefined)) return undefined;
  return originBodyFor(origin, options.model, options.stream);
}
