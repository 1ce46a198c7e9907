/**
 * `@switchyard/core/internal`: building blocks the first-party packages share (loaders,
 * schemas, the response accumulator, idempotency, continuation, fail-closed taps, the event
 * relay, field copies). Not part of the public contract: they may change in any release.
 */
export { AbortLink, type AbortSource } from './abort-link.js';
export { ResponseAccumulator, responseToParts } from './aggregate.js';
export { withCallerHints } from './caller.js';
export { attemptRecord, CANDIDATE_REF } from './candidate-ref.js';
export { buildCandidates, candidatesForDeployment, DEFAULT_DEADLINE_MS, DEFAULT_TIMEOUTS, endpointKeys, keyLabel } from './candidates.js';
export { checkReferences, configSchema, deploymentSchema, endpointSchema, formatPath, httpUrlSchema, modelLimitsSchema, modelsSchema, pluginEntrySchema, priceSchema, serverSchema, validateEndpointsAndModels } from './config-schema.js';
export { continuationCandidates, continueStream, DEFAULT_MAX_CONTINUATIONS, prefillRequest } from './continuation.js';
export type { StreamAttemptResult } from './contract.js';
export { addFields, withField } from './copy-fields.js';
export { applyErrorRules, type ErrorRule, findRule, ruleMatches, type RuleSubject } from './error-rules.js';
export { ERROR_MARKER, errorCode, isSwitchyardErrorCode, registeredErrorCodes } from './errors.js';
export { relayEvents } from './event-relay.js';
export { containRecordTaps, failClosed, failClosedError, FAILED_CLOSED_CODE } from './fail-closed.js';
export { createPipelineHooks } from './hooks.js';
export { IDEMPOTENCY_CONFLICT, IDEMPOTENCY_TTL_MS, IDEMPOTENCY_UNAVAILABLE, type IdempotencyFallback, type IdempotentRun, runIdempotent } from './idempotency.js';
export { PIPELINE_MARKER } from './pipeline-marker.js';
export { isPipeline, type Owned } from './pipeline.js';
export { FIRST_PARTY_PROVIDERS, importerFrom, loadPlugins, loadProviders, loadRecords, loadStore, providersOf } from './plugin-loader.js';
export { PLUGIN_MARKER } from './plugin-marker.js';
export { checkPluginCompatibility, isPlugin } from './plugin.js';
export { attributeError } from './attribute-error.js';
export { type CallEnv, callProvider, sendProviderRequest } from './provider-call.js';
export { joinUrl } from './wire-request.js';
export { isProvider, PROVIDER_MARKER } from './provider.js';
export { defaultClassification, defaultRetryDecision } from './request-defaults.js';
export { buildOrRefuse, isUnsentFailure, REQUEST_UNSENT_CODE, unsentRequestError } from './request-failure.js';
export { checkRequestLimits, DEFAULT_REQUEST_LIMITS, REQUEST_LIMIT_CODE, type RequestLimits } from './request-limits.js';
export { attemptMoves, type RequestOutcomeClass, requestOutcomeClass, unansweredCause } from './request-summary.js';
export { type AttemptPhase, isSilentEndpoint, RequestTimer, SILENT_ENDPOINT_KINDS } from './request-timer.js';
export { retryAfterVerdict, type WaitLimits, type WaitVerdict } from './retry-after-verdict.js';
export { randomId } from './random-id.js';
export { readMany, readManyNow, type StoreSnapshot } from './state-store.js';
export { attemptTimeouts, checkSwitchyardHints, HINT_LIMITS, INVALID_HINTS_CODE } from './switchyard-hints.js';
export { tapMaybeAsync } from './tap-maybe-async.js';
export { choicesOf, inputTokenBound, outputLimitOf, reservationTokens, type TokenBoundRules } from './token-bound.js';
export { inputPriceBound, ratesForPrompt, type TokenCounts, tokenCounts, usageCostUsd, toolCallsCostUsd } from './usage-cost.js';
export { type OfferedServerTool, serverToolKindsOffered, serverToolsOffered, toolKindOf } from './server-tools.js';
export { formatDuration } from './duration-text.js';
export { hiddenSlot, type HiddenSlot } from './hidden-slot.js';
export { droppedFor, droppedSummary, isStrict, skippedSummary, type SkippedCandidate } from './translation.js';
export { validateChatRequest, validateEmbeddingRequest } from './validate-request.js';
export { CORE_VERSION } from './version.js';
export { createWarmConnector, type WarmConnector } from './warm-connector.js';
export type { DurableKeyRegistry } from './durable-records.js';
export { COMPACT_AFTER_LINES, JournalRecords } from './journal-records.js';
export { JsonText, jsonTextOf } from './json-text.js';
export type { CandidateHold } from './contract.js';
export { replaceFile, type ReplaceFileOptions } from './replace-file.js';
