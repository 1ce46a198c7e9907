/**
 * `@switchyard/core/wire`: helpers for code that speaks a vendor's wire format (providers and
 * the gateway's dialects): the SSE parser, kept wire bodies and texts, wire-format names,
 * error-body reading, secret redaction, the request's origin and what it cannot express.
 */
export { parseBaseUrl, type ParsedBaseUrl } from './base-url.js';
export { KeyScan } from './key-scan.js';
export { ERROR_BODY_LIMIT_BYTES, readErrorBodyText } from './error-body.js';
export { bodyCodes } from './error-rules.js';
export { expressibleCandidates, refusedPart, UNEXPRESSIBLE_CODE } from './expressible.js';
export { bodyExcerpt, isContextLengthMessage, kindForStatus, parseRetryAfter, policyHeaders } from './http-errors.js';
export { modelEditIn, originBodyFor, originTextFor, splicedBody, withModelReplaced, type BodyEdit, type SplicedBody } from './model-splice.js';
export type { DecodedSseEvent } from './provider.js';
export { REDACTED, redactSecrets, SECRET_FRAGMENT_LENGTH } from './redact-secrets.js';
export { type RequestOrigin, requestOriginOf, setRequestOrigin, type Untranslatable } from './request-origin.js';
export { type SseEvent, SseParser, sseEventNameAt } from './sse.js';
export { startsAt } from './text-at.js';
export { utf8Text, utf8TextChecked } from './utf8-text.js';
export { transportError } from './transport-error.js';
export { readBodyText } from './transport.js';
export { isContentPart, type SwitchyardRequestOptions } from './types.js';
export { keepWireBody, type WireBody, wireBodyOf, wireJsonOf } from './wire-body.js';
export { isUnreadEvents, keepWireText, unreadEvents, wireTextOf } from './wire-events.js';
export { ANTHROPIC_MESSAGES, OPENAI_CHAT_COMPLETION, OPENAI_RESPONSES } from './wire-formats.js';
export { providerBaseUrl, toWireRequest } from './wire-request.js';
export type { FrameDecoder, WireRequest } from './provider.js';
export { secretRandomPart } from './redact-secrets.js';
export { DEFAULT_RESPONSE_LIMITS, RESPONSE_TOO_LARGE_CODE, responseTooLarge, type ResponseLimits } from './response-limits.js';
/** What a deployment is sent without (`ProviderV1.drops`), disclosed with its answer. */
export type { DroppedPart } from './types.js';
