/** @switchyard/provider-openai's coded errors (its Responses dialect's stored responses): registered with core so `httpStatusOf` answers them. */
import { defineErrorCodes, type CodesOf } from '@switchyard/core';

export const OPENAI_ERRORS = defineErrorCodes('@switchyard/provider-openai', {
  /** The OpenAI Responses ingress: a stored response that is unknown or expired. */
  SWITCHYARD_ERR_RESPONSE_NOT_FOUND: { kind: 'invalid-request', status: 404 },
  /** A `previous_response_id` the gateway does not hold. */
  SWITCHYARD_ERR_PREVIOUS_RESPONSE_NOT_FOUND: 'invalid-request',
  /** `store: true` past the Responses dialect's stored-bytes cap. */
  SWITCHYARD_ERR_RESPONSE_STORE_FULL: { kind: 'rate-limit', status: 429 },
  /** A `previous_response_id` conversation past its byte limit. */
  SWITCHYARD_ERR_CONVERSATION_TOO_LARGE: 'invalid-request',
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof OPENAI_ERRORS> {}
}
