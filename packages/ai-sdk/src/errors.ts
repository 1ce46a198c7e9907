/**
 * Pipeline failures as the AI SDK expects provider errors: an `APICallError` (recognised across
 * package copies by its marker) carrying the vendor's status and Switchyard's error as cause.
 * `isRetryable` is false: the pipeline already retried and failed over within its deadline,
 * and a second retry layer in the AI SDK would multiply load on vendors that are failing.
 */
import { APICallError } from '@ai-sdk/provider';
import { isSwitchyardError, type ChatRequest } from '@switchyard/core';

export function toAiSdkError(error: unknown, request: ChatRequest, signal: AbortSignal | undefined): unknown {
  // A caller's abort stays an abort: the AI SDK recognises it and does not report a failure.
  if (signal?.aborted) return signal.reason ?? error;
  if (!isSwitchyardError(error)) return error;
  // When every candidate failed, the last vendor's answer is the one worth reading.
  const last = error.attempts?.at(-1);
  return new APICallError({
    message: last && last.message !== error.message ? `${error.message} (last: ${last.message})` : error.message,
    url: `switchyard:${request.model}`,
    requestBodyValues: request,
    statusCode: error.status ?? last?.status,
    isRetryable: false,
    cause: error,
    data: { kind: error.kind, code: error.code, attempts: (error.attempts ?? []).map((a) => ({ kind: a.kind, status: a.status, endpoint: a.endpoint })) },
  });
}
