/**
 * The code of the error a response was answered with. A request refused before the pipeline
 * routed it (a body that does not decode, a model the caller may not use) has no `request:end`
 * to tell its access line why; the reply does.
 */
import type { ServerResponse } from 'node:http';

const codes = new WeakMap<ServerResponse, string>();

export function noteErrorCode(res: ServerResponse, code: string | null | undefined): void {
  if (code) codes.set(res, code);
}

export function errorCodeOf(res: ServerResponse): string | undefined {
  return codes.get(res);
}

/** The model a request names before it is routed: its body's `model`, else the model in its path (Gemini). */
export function requestedModel(body: unknown, params: Readonly<Record<string, string>>): string | undefined {
  const named = body !== null && typeof body === 'object' ? (body as { model?: unknown }).model : undefined;
  const model = typeof named === 'string' ? named : params.model;
  return model === undefined ? undefined : model.slice(0, 200);
}
