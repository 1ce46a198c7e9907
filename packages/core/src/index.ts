/**
 * @switchyard/core's public contract: the types, the pipeline and its hooks, errors, clock,
 * events, state store, plugin and provider definitions, services, config and transport.
 * Building blocks the first-party packages share but users should not lean on are in
 * `@switchyard/core/internal` (internal.ts).
 */
export * from './types.js';
export * from './errors.js';
export * from './redact-secrets.js';
export * from './clock.js';
export { AbortLink, type AbortSource } from './abort-link.js';
export * from './sse.js';
export * from './provider.js';
export * from './http-errors.js';
export * from './events.js';
export * from './state-store.js';
export * from './store-local.js';
export * from './durable-records.js';
export { RecordKeepingStore, type RecordKeepingOptions } from './record-keeping-store.js';
export { JournalRecords } from './journal-records.js';
export * from './event-relay.js';
export * from './hooks.js';
export * from './plugin.js';
export type { CandidateHold, RequestContext, RequestState, RunAttemptOptions, StreamAttemptResult } from './contract.js';
export { candidatesForDeployment, endpointKeys, keyLabel } from './candidates.js';
export * from './transport.js';
export * from './transport-from-config.js';
export { isSilentEndpoint, SILENT_ENDPOINT_KINDS } from './request-timer.js';
export * from './chat-stream.js';
export { combineProblems, configError, type PluginEntry, type ServerConfig, type SwitchyardConfig } from './config-schema.js';
export { closestName, didYouMean } from './did-you-mean.js';
export * from './config.js';
export { loadConfigFile } from './config-file.js';
export * from './secret-resolvers.js';
export { createPipelineFromConfig, pluginProblems, type FromConfigOptions, type Importer } from './plugin-loader.js';
export { createPipeline, defaultClassification, defaultRetryDecision, isPipeline, PIPELINE_MARKER } from './pipeline.js';
export type { Pipeline, PipelineOptions, CallOptions, Owned } from './pipeline.js';
export { joinUrl, providerBaseUrl, toWireRequest } from './wire-request.js';
export { CORE_VERSION } from './version.js';
export * from './services.js';
export * from './retry-after-verdict.js';
export * from './error-rules.js';
export { createWarmConnector, type WarmConnector } from './warm-connector.js';
export { runIdempotent, IDEMPOTENCY_CONFLICT, IDEMPOTENCY_TTL_MS, IDEMPOTENCY_UNAVAILABLE, type IdempotentRun, type IdempotencyFallback } from './idempotency.js';
export { continueStream, continuationCandidates, prefillRequest, DEFAULT_MAX_CONTINUATIONS } from './continuation.js';
export * from './usage-cost.js';
export { keepWireBody, wireBodyOf, type WireBody } from './wire-body.js';
export * from './wire-formats.js';
export * from './request-origin.js';
export { withModelReplaced } from './model-splice.js';
export { keepWireText, wireTextOf } from './wire-events.js';
export { expressibleCandidates, refusedPart, UNEXPRESSIBLE_CODE } from './expressible.js';
export * from './request-summary.js';
export * from './request-failure.js';
export * from './request-limits.js';
export * from './response-limits.js';
export * from './error-body.js';
export * from './switchyard-hints.js';
export * from './fail-closed.js';
export { tapMaybeAsync } from './tap-maybe-async.js';
export { addFields, withField } from './copy-fields.js';
export { withCallerHints, type CallerIdentity } from './caller.js';
