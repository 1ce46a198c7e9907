// Its words (events, hooks, codes) live in @switchyard/contracts, shared with the packages that observe them.
export type { ConfigReload, RequestShed } from '@switchyard/contracts';
export { createGateway, type Gateway, type GatewayAddress, type GatewayOptions, type ReloadOptions } from './gateway.js';
export { pipelineFromConfig, resolveCa } from './pipeline-from-config.js';
export { openGatewayStore, type GatewayStore } from './gateway-store.js';
export { resolveServerOptions, assertSafeBinding, assertKeysServed, isLoopbackHost, type ServerOptions } from './server-options.js';
export { replyForError, errorReply, type ErrorReply, type ErrorReplyOptions, type OpenAIErrorBody } from './openai-errors.js';
export { chatCompletionBody, ChunkEncoder, wireFinishReason } from '@switchyard/provider-openai/dialect';
export { createKeyCheck, type KeyCheck } from './gateway-keys.js';
export { GatewayMetrics } from './gateway-metrics.js';
export { SecretMasker, SENSITIVE_FIELDS, LOGGER_MASKER, maskerOf, maskingLogger, pipelineSecrets } from './secret-masking.js';
export { CLIENT_CLOSED_STATUS, type AccessOutcome } from './access-log.js';
export { silentLogger, flatLineWriterOf, LOGGER_FLAT_LINE, type FlatLineWriter, type Logger, type LogFields } from './logger.js';
export { StatusBoard, type StatusReport, type DeploymentStatus, type DeploymentState, type ModelStatus, type ModelState, type BreakerView, type KeyView } from './status-board.js';
export { statusPage } from './status-page.js';
export { DEFAULT_DIALECTS, openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect } from './default-dialects.js';
export { TOKEN_COUNT_HEADER } from './count-tokens.js';
