/**
 * The OpenAI dialect: Chat Completions, embeddings and the model list, the shapes every OpenAI
 * SDK speaks. Its unified types are the pipeline's own, so requests go in as they came, and a
 * Chat Completions vendor's text and chunks come back as they came.
 */
import { type ChatRequest, type EmbeddingRequest } from '@switchyard/core';
import { OPENAI_CHAT_COMPLETION, setRequestOrigin } from '@switchyard/core/wire';
import { defineDialect } from '@switchyard/core/dialect';
import { chatCompletionBody, ChunkEncoder, embeddingsBody, modelEntry, sseErrorEvent } from './chat-wire.js';
import { wantsStream } from './stream-flag.js';

export const openaiChatDialect = defineDialect({
  specificationVersion: 'v1',
  id: OPENAI_CHAT_COMPLETION,
  routes: [
    { method: 'POST', path: '/v1/chat/completions', operation: 'generate' },
    { method: 'POST', path: '/v1/embeddings', operation: 'embed' },
    { method: 'GET', path: '/v1/models', operation: 'models' },
    { method: 'GET', path: '/v1/models/{model*}', operation: 'model' },
  ],
  decodeRequest({ body, bodyText, bodyBytes }) {
    const stream = wantsStream(body);
    const request = body as ChatRequest;
    // A Chat Completions vendor gets the client's text. (Anything but an object is refused by the pipeline's checks, naming what is wrong.)
    if (typeof body === 'object' && body !== null) setRequestOrigin(request, { format: OPENAI_CHAT_COMPLETION, body: request, text: bodyText, bytes: bodyBytes });
    return { request, stream, hints: [], capabilities: [] };
  },
  encodeResponse: (response) => chatCompletionBody(response),
  createStreamEncoder: (info, { request }) => new ChunkEncoder(info, request.stream_options?.include_usage === true),
  streamError: (reply) => sseErrorEvent(reply.body),
  embeddings: {
    decode: ({ body }) => body as EmbeddingRequest,
    encode: (response) => embeddingsBody(response),
  },
  models: {
    list: (models, created) => ({ object: 'list', data: models.map((id) => modelEntry(id, created)) }),
    one: (id, created) => modelEntry(id, created),
  },
});
