/**
 * POST /v1/chat/completions. Non-streaming answers are one `chat.completion` object; streams
 * are `chat.completion.chunk` events on the commit-point contract (stream-answer.ts).
 */
import { OPENAI_CHAT_COMPLETION, setRequestOrigin, wireBodyOf, type ChatRequest } from '@switchyard/core';
import type { Exchange } from './exchange.js';
import { infoHeaders, sendJson, sendJsonText } from './http-reply.js';
import { replyWithError } from './openai-errors.js';
import { chatCompletionBody, ChunkEncoder } from './openai-wire.js';
import { serveStream, wantsStream } from './stream-answer.js';

export async function chatCompletions(x: Exchange, body: unknown): Promise<void> {
  if (wantsStream(body)) {
    const request = body as ChatRequest;
    // The client speaks Chat Completions: a Chat Completions vendor's chunks can reach it as they came.
    setRequestOrigin(request, { format: OPENAI_CHAT_COMPLETION, body: request });
    return serveStream(x, request, (info) => new ChunkEncoder(info, request.stream_options?.include_usage === true));
  }
  try {
    const response = await x.pipeline.chat(body as ChatRequest, x.call);
    // The same-format fast path: an OpenAI-shaped vendor answer goes out as the vendor wrote it.
    const wire = wireBodyOf(response, OPENAI_CHAT_COMPLETION);
    if (wire !== undefined) sendJsonText(x.res, 200, wire, infoHeaders(response.switchyard));
    else sendJson(x.res, 200, chatCompletionBody(response), infoHeaders(response.switchyard));
  } catch (error) {
    replyWithError(x, error);
  }
}
