/**
 * Gateway errors in the Gemini API's shape, `{"error":{"code","message","status"}}`, with
 * Google's canonical statuses, so the Gemini SDKs and CLI retry what they would retry from
 * Google (429 `RESOURCE_EXHAUSTED`, 503 `UNAVAILABLE`) and stop on the rest.
 */
import type { GatewayErrorReply, WireError } from '@switchyard/core/dialect';

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google answers an unavailable backend with 503; a gateway's 502 (every vendor failed) reads the same to its clients. */
function geminiStatus(status: number): number {
  return status === 502 ? 503 : status;
}

export function geminiErrorBody(reply: GatewayErrorReply): { error: { code: number; message: string; status: string } } {
  const code = geminiStatus(reply.status);
  const { message, param } = reply.body.error;
  const named = param && !message.startsWith(param) ? `${param}: ${message}` : message;
  return { error: { code, message: named, status: STATUS_NAMES[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION') } };
}

export function renderGeminiError(reply: GatewayErrorReply): WireError {
  return { status: geminiStatus(reply.status), body: geminiErrorBody(reply), headers: reply.headers };
}

/** A committed SSE stream's failure: a chunk with the error, as Google ends a stream it cannot finish. */
export function geminiStreamError(reply: GatewayErrorReply): string {
  return `data: ${JSON.stringify(geminiErrorBody(reply))}\n\n`;
}
