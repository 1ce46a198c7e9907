export { createGateway, type Gateway, type GatewayAddress, type GatewayOptions, type ReloadOptions } from './gateway.js';
export { pipelineFromConfig, resolveCa } from './pipeline-from-config.js';
export { openGatewayStore, type GatewayStore } from './gateway-store.js';
export { resolveServerOptions, assertSafeBinding, isLoopbackHost, type ServerOptions } from './server-options.js';
export { replyForError, errorReply, type ErrorReply, type ErrorReplyOptions, type OpenAIErrorBody } from './openai-errors.js';
export { chatCompletionBody, ChunkEncoder, wireFinishReason } from './openai-wire.js';
export { createKeyCheck, type KeyCheck } from './gateway-keys.js';
export { GatewayMetrics } from './metrics.js';
export { silentLogger, type Logger, type LogFields } from './logger.js';
