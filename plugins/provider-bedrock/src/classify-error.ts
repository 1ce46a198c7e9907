/**
 * Bedrock failures → SwitchyardError, by the exception name AWS sends (the `x-amzn-errortype`
 * header, the body's `__type`, or an event-stream exception frame's `:exception-type`), with the
 * status as the fallback. Names and statuses: the Bedrock Runtime API reference, "Errors" of
 * InvokeModel / InvokeModelWithResponseStream / Converse.
 */
import { bodyExcerpt, httpError, isContextLengthMessage, kindForStatus, redactSecrets, SwitchyardError, type Candidate, type ErrorKind, type ProviderHttpResponse } from '@switchyard/core';

const KIND_BY_EXCEPTION: Readonly<Record<string, ErrorKind>> = {
  ThrottlingException: 'rate-limit',
  // A quota the account has (tokens per minute, model units) is a rate limit of this account.
  ServiceQuotaExceededException: 'rate-limit',
  ServiceUnavailableException: 'overloaded',
  ModelNotReadyException: 'overloaded',
  InternalServerException: 'server',
  ModelErrorException: 'server',
  ModelStreamErrorException: 'server',
  ModelTimeoutException: 'timeout',
  ValidationException: 'bad-request',
  ResourceNotFoundException: 'not-found',
  // Credentials that do not work: the key is parked and alerted on, never retried.
  AccessDeniedException: 'auth',
  UnrecognizedClientException: 'auth',
  InvalidSignatureException: 'auth',
  IncompleteSignatureException: 'auth',
  MissingAuthenticationTokenException: 'auth',
  ExpiredTokenException: 'auth',
  SignatureDoesNotMatch: 'auth',
};

/** The HTTP status each exception has (for exception frames inside a 200 stream). */
const STATUS_BY_EXCEPTION: Readonly<Record<string, number>> = {
  ThrottlingException: 429,
  ServiceQuotaExceededException: 400,
  ServiceUnavailableException: 503,
  ModelNotReadyException: 429,
  InternalServerException: 500,
  ModelErrorException: 424,
  ModelStreamErrorException: 424,
  ModelTimeoutException: 408,
  ValidationException: 400,
  ResourceNotFoundException: 404,
  AccessDeniedException: 403,
};

/** `ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/` or `com.amazon.coral#X` → `ThrottlingException`; stream frames use lower camel case. */
export function exceptionName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const name = raw.split(':')[0]!.split('#').pop()!.trim();
  return name ? name[0]!.toUpperCase() + name.slice(1) : undefined;
}

export interface BedrockFailure {
  status: number;
  exception?: string;
  message: string;
}

function kindOf(failure: BedrockFailure): ErrorKind {
  const known = failure.exception ? KIND_BY_EXCEPTION[failure.exception] : undefined;
  if (known === 'bad-request' && isContextLengthMessage(failure.message)) return 'context-length';
  if (known) return known;
  if (failure.status === 403) return 'auth';
  return kindForStatus(failure.status);
}

function describe(failure: BedrockFailure, target: Candidate): string {
  return redactSecrets(failure.exception ? `${failure.message} (${failure.exception})` : failure.message, [target.apiKey]);
}

export function classifyBedrockError(response: ProviderHttpResponse, target: Candidate): SwitchyardError {
  const body = typeof response.json === 'object' && response.json !== null ? (response.json as { message?: unknown; Message?: unknown; __type?: unknown }) : undefined;
  const exception = exceptionName(response.headers['x-amzn-errortype'] ?? (typeof body?.__type === 'string' ? body.__type : undefined));
  const vendorMessage = typeof body?.message === 'string' ? body.message : typeof body?.Message === 'string' ? body.Message : bodyExcerpt(response.text);
  const failure = { status: response.status, exception, message: vendorMessage };
  return httpError({ status: response.status, headers: response.headers, message: describe(failure, target), vendorCode: exception, kind: kindOf(failure), provider: 'bedrock' });
}

/** An exception frame inside a 200 event stream. */
export function streamException(exceptionType: string | undefined, payload: string, target: Candidate): SwitchyardError {
  const exception = exceptionName(exceptionType) ?? 'InternalServerException';
  let message = bodyExcerpt(payload);
  try {
    const json = JSON.parse(payload) as { message?: unknown };
    if (typeof json.message === 'string') message = json.message;
  } catch {
    // not JSON: the excerpt stands
  }
  const failure = { status: STATUS_BY_EXCEPTION[exception] ?? 500, exception, message };
  return new SwitchyardError(kindOf(failure), `bedrock stream exception: ${describe(failure, target)}`, { status: failure.status, vendorCode: exception, provider: 'bedrock' });
}
