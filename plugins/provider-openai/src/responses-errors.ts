/**
 * Failures the Responses API reports inside a 200 (a `response.failed` event, a response whose
 * `status` is `failed`, an `error` event) → SwitchyardError. Its `ResponseError.code` says
 * whose fault it was: the prompt's and its images' (`invalid_prompt`, `invalid_image_*`,
 * `image_*`) are request failures another vendor would refuse too; policy codes are content
 * filters; `server_error` and `rate_limit_exceeded` are the endpoint's.
 */
import { SwitchyardError, type ErrorKind } from '@switchyard/core';
import { bodyCodes, redactSecrets } from '@switchyard/core/wire';
import { findRule, type ErrorRule } from '@switchyard/core/internal';

const FAILURE_KINDS: Record<string, ErrorKind> = {
  server_error: 'server',
  rate_limit_exceeded: 'rate-limit',
  vector_store_timeout: 'server',
  invalid_prompt: 'bad-request',
  data_residency_mismatch: 'bad-request',
  bio_policy: 'content-filter',
  image_content_policy_violation: 'content-filter',
};

function kindOfCode(code: string | undefined): ErrorKind {
  if (code === undefined) return 'server';
  const known = FAILURE_KINDS[code];
  if (known) return known;
  // invalid_image, invalid_image_format, image_too_large, unsupported_image_media_type, empty_image_file, failed_to_download_image…
  if (/image|^invalid_|^unsupported_|^empty_/.test(code)) return 'bad-request';
  return 'server';
}

/** `error` is the response's `error` object, or the `error` event itself (`{code, message, param}`). */
export function classifyResponseFailure(provider: string, error: unknown, apiKey?: string, rules?: readonly ErrorRule[]): SwitchyardError {
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = typeof fields.code === 'string' && fields.code ? fields.code : undefined;
  const message = typeof fields.message === 'string' && fields.message ? fields.message : 'the response failed';
  const rule = findRule(rules, { codes: bodyCodes(error), text: message });
  return new SwitchyardError(rule?.kind ?? kindOfCode(code), `${provider} response failed: ${redactSecrets(message, [apiKey])}`, {
    provider,
    ...(code ? { vendorCode: code } : {}),
    ...(typeof fields.param === 'string' ? { param: fields.param } : {}),
  });
}
