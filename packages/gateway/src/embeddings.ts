/** POST /v1/embeddings: the same failover as chat, one JSON answer. */
import type { EmbeddingRequest } from '@switchyard/core';
import type { Exchange } from './exchange.js';
import { infoHeaders, sendJson } from './http-reply.js';
import { replyWithError } from './openai-errors.js';
import { embeddingsBody } from './openai-wire.js';

export async function embeddings(x: Exchange, body: unknown): Promise<void> {
  try {
    const response = await x.pipeline.embeddings(body as EmbeddingRequest, x.call);
    sendJson(x.res, 200, embeddingsBody(response), infoHeaders(response.switchyard));
  } catch (error) {
    replyWithError(x, error);
  }
}
