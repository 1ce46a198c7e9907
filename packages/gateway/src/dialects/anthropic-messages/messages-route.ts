/**
 * POST /v1/messages: a Messages API request through the pipeline, answered as a `message` or as
 * the Messages event stream, on the same failover, commit point and continuation contract as
 * chat completions (stream-answer.ts). An answer from Anthropic goes out as Anthropic wrote it;
 * anything else is encoded from the unified answer.
 */
import { type ChatRequest } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, wireBodyOf } from '@switchyard/core/wire';
import type { Exchange } from '../../exchange.js';
import { infoHeaders, sendJson, sendJsonText } from '../../http-reply.js';
import { replyWithError } from '../../openai-errors.js';
import { serveStream } from '../../stream-answer.js';
import { inClientTerms, PathRecorder } from './client-paths.js';
import { decodeMessagesRequest, type DecodedMessages } from './decode-request.js';
import { messageBody } from './encode-response.js';
import { MessagesStreamEncoder } from './stream-encoder.js';

export async function messages(x: Exchange, body: unknown): Promise<void> {
  let decoded: DecodedMessages;
  try {
    decoded = decodeMessagesRequest(body, x.req.headers);
  } catch (error) {
    // Decoding names the client's own fields already.
    return replyWithError(x, error);
  }
  const { request, stream } = decoded;
  const clientTerms = (error: unknown) => inClientTerms(error, request, () => pathsOf(x, body));
  if (stream) return serveStream(x, request, (info) => new MessagesStreamEncoder(info), clientTerms);
  try {
    const response = await x.pipeline.chat(request as ChatRequest, x.call);
    const wire = wireBodyOf(response, ANTHROPIC_MESSAGES);
    if (wire !== undefined) sendJsonText(x.res, 200, wire, infoHeaders(response.switchyard));
    else sendJson(x.res, 200, messageBody(response), infoHeaders(response.switchyard));
  } catch (error) {
    replyWithError(x, clientTerms(error));
  }
}

function pathsOf(x: Exchange, body: unknown): PathRecorder {
  const paths = new PathRecorder();
  decodeMessagesRequest(body, x.req.headers, { paths });
  return paths;
}
