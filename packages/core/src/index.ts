/**
 * @switchyard/core: what a plugin, provider or pipeline author uses. The pipeline and its
 * hooks, the request context, the unified types, errors and their codes, events, clock and
 * state store, and the mechanisms packages use to cooperate and to own their words: services,
 * request slots, published hooks, error codes. At most 130 names (a test holds the cap): the
 * rest is in subpaths, each listed in package.json's exports:
 *   `@switchyard/core/config`   reading and validating a config, secrets, the transport from it;
 *   `@switchyard/core/wire`     vendor wire helpers: SSE, wire bodies and formats, error bodies;
 *   `@switchyard/core/internal` building blocks the first-party packages share (may change in any release).
 */
export type { CallerIdentity } from './caller.js';
export { type AttemptRecord, type CandidateRef, candidateRef } from './candidate-ref.js';
export { ChatStream, type StreamInfo } from './chat-stream.js';
export { type Clock, type RandomSource, runWithVirtualTime, seededRandom, sleep, systemClock, type TimerHandle, VirtualClock } from './clock.js';
export type { Attempt, AttemptResult, CallOptions, Classification, DegradeResult, Pipeline, PipelineHooks, Plugin, PluginDefinition, RequestContext, RequestState, RetryDecision, RunAttemptOptions, StreamInterruption, Transport, TransportRequest, TransportResponse } from './contract.js';
export { type CodesOf, type DefinedErrorCodes, defineErrorCodes, type ErrorCodeInfo, errorCodeInfo, type ErrorCodeSpec, type ErrorKind, httpStatusOf, isSwitchyardError, type OutcomeClass, outcomeOf, SwitchyardError, type SwitchyardErrorCode, type SwitchyardErrorCodes, type SwitchyardErrorOptions, toSwitchyardError } from './errors.js';
export { type AttemptFailure, listenAll, type RequestRecord, SwitchyardEventBus, type SwitchyardEventName, type SwitchyardEvents, type SwitchyardListeners } from './events.js';
export { declareDurableKeys, type DurableKeys, type DurableRecord, type DurableRecordStore } from './durable-records.js';
export { defineHooks, type HookRegistry } from './hook-registry.js';
export { type CallHook, STAGE, tapEveryCall } from './hooks.js';
export { httpError, type HttpErrorDetails } from './http-errors.js';
export type { AttemptOutcome, RequestOutcome } from './outcomes.js';
export { createPipeline, type PipelineOptions } from './pipeline.js';
export { definePlugin, type PluginFactory } from './plugin.js';
export { type AccountBalance, type BalanceQuery, type BuildOptions, defineProvider, type EndpointReport, type ProviderHttpResponse, type ProviderRequest, type ProviderV1, type StreamDecoder, type Unsupported } from './provider.js';
export { defineRequestSlot, defineService, getService, provideService, type RequestSlot, requireService, type ServiceKey } from './services.js';
export { MemoryStateStore, type StateStore, type StoreAvailability } from './state-store.js';
export { storeLocal } from './store-local.js';
export type { AttemptTimeouts, Candidate, Capability, ChatChoice, ChatMessage, ChatRequest, ChatResponse, ChatResult, ContentPart, DeploymentConfig, EmbeddingRequest, EmbeddingResponse, EmbeddingResult, EndpointConfig, ErrorPart, FinishPart, FinishReason, ImageContentPart, ModelLimits, ModelsConfig, Price, ProviderMetadata, ReasoningDeltaPart, ResponseFormat, ResponseInfo, ResponseMessage, ResponseMetadataPart, Role, StreamPart, TextContentPart, TextDeltaPart, ToolCall, ToolCallDeltaPart, ToolChoice, ToolDefinition, TruncationInfo, Usage, UsagePart } from './types.js';
