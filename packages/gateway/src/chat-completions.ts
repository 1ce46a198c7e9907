/**
 * POST /v1/chat/completions. Non-streaming answers are one `chat.completion` object; streams
 * are `chat.completion.chunk` events on the commit-point contract (stream-answer.ts).
 */
import { type ChatRequest } from '@switchyard/core';
import { OPENAI_CHAT_COMPLETION, setRequestOrigin, wireBodyOf } from '@switchyard/core/wire';
import type { Exchange } from './exchange.js';
import { infoHeaders, sendJson, sendJsonText } from './http-reply.js';
import { replyWithError } from './openai-errors.js';
import { chatCompletionBody, ChunkEncoder } from './openai-wire.js';
import { serveStream, wantsStream } from './stream-answer.js';

export async function chatCompletions(x: Exchange, body: unknown): Promise<void> {
  const stream = wantsStream(body);
  const request = body as ChatRequest;
  // The client speaks Chat Completions: a Chat Completions vendor gets its text and its chunks come back as they came.
  // (Anything but an object is refused by the pipeline's checks, naming what is wrong.)
  if (typeof body === 'object' && body !== null) setRequestOrigin(request, { format: OPENAI_CHAT_COMPLETION, body: request, text: x.bodyText });
  if (stream) {
    return serveStream(x, request, (info) => new ChunkEncoder(info, request.stream_options?.include_usage === true));
  }
  try {
    const response = await x.pipeline.chat(request, x.call);
    // The same-format fast path: an OpenAI-shaped vendor answer goes out as the vendor wrote it.
    const wire = wireBodyOf(response, OPENAI_CHAT_COMPLETION);
    if (wire !== undefined) sendJsonText(x.res, 200, wire, infoHeaders(response.switchyard));
    else sendJson(x.res, 200, chatCompletionBody(response), infoHeaders(response.switchyard));
  } catch (error) {
    replyWithError(x, error);
  }
}
