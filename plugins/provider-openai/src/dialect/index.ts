/**
 * `@switchyard/provider-openai/dialect`: the client side of the OpenAI wire formats, beside
 * this package's codec for them (one home per format): Chat Completions (with embeddings and
 * the model list) and Responses (with its stored responses). Loads none of the codec.
 */
export { openaiChatDialect } from './chat-completions.js';
export { chatCompletionBody, ChunkEncoder, embeddingsBody, modelEntry, wireFinishReason, type ModelEntry } from './chat-wire.js';
export { openaiResponsesDialect, ResponsesStreamEncoder, responseBody, requestEcho, decodeRequest, inputItems, ResponseStore, RESPONSE_KEY_PREFIX, type ResponsesStreamOptions, type StoredResponse, writesSettled } from './responses/index.js';
export { OPENAI_ERRORS } from '../error-codes.js';
