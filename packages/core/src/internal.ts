/**
 * `@switchyard/core/internal`: building blocks the first-party packages share (the CLI's
 * loaders, the gateway's config schema, providers' response accumulator). Not part of the
 * public contract: they may change in any release.
 */
export { RequestTimer, type AttemptPhase } from './request-timer.js';
export { ResponseAccumulator, responseToParts } from './aggregate.js';
export { buildCandidates, DEFAULT_DEADLINE_MS, DEFAULT_TIMEOUTS } from './candidates.js';
export { attributeError, callProvider, sendProviderRequest, type CallEnv } from './provider-call.js';
export { checkReferences, configSchema, deploymentSchema, endpointSchema, formatPath, httpUrlSchema, modelLimitsSchema, modelsSchema, pluginEntrySchema, priceSchema, serverSchema, validateEndpointsAndModels } from './config-schema.js';
export { validateChatRequest, validateEmbeddingRequest } from './validate-request.js';
export { FIRST_PARTY_PROVIDERS, importerFrom, loadPlugins, loadProviders, loadRecords, loadStore, providersOf } from './plugin-loader.js';
