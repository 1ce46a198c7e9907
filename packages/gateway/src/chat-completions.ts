/**
 * POST /v1/chat/completions. Non-streaming answers are one `chat.completion` object. Streams
 * follow the commit-point contract: nothing but SSE comment heartbeats before the pipeline
 * commits; after it, a failure is an SSE error event and the stream never ends with `[DONE]`.
 */
import { OPENAI_CHAT_COMPLETION, SwitchyardError, wireBodyOf, type ChatRequest, type ChatStream } from '@switchyard/core';
import type { Exchange } from './exchange.js';
import { drained, infoHeaders, sendJson, sendJsonText, StreamWriter } from './http-reply.js';
import { replyForError, replyWithError } from './openai-errors.js';
import { chatCompletionBody, ChunkEncoder, sseErrorEvent } from './openai-wire.js';

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

export async function chatCompletions(x: Exchange, body: unknown): Promise<void> {
  const stream = (body as { stream?: unknown } | null)?.stream;
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw new SwitchyardError('invalid-request', 'stream must be a boolean', { path: 'stream', status: 400 });
  }
  if (stream === true) return streamCompletion(x, body as ChatRequest);
  try {
    const response = await x.pipeline.chat(body as ChatRequest, x.call);
    // The same-format fast path: an OpenAI-shaped vendor answer goes out as the vendor wrote it.
    const wire = wireBodyOf(response, OPENAI_CHAT_COMPLETION);
    if (wire !== undefined) sendJsonText(x.res, 200, wire, infoHeaders(response.switchyard));
    else sendJson(x.res, 200, chatCompletionBody(response), infoHeaders(response.switchyard));
  } catch (error) {
    replyWithError(x.res, error, x.errorOptions);
  }
}

async function streamCompletion(x: Exchange, request: ChatRequest): Promise<void> {
  const { res } = x;
  let heartbeat: ReturnType<Exchange['clock']['setTimeout']> | undefined;
  const beat = () => {
    if (!res.headersSent) {
      res.writeHead(200, SSE_HEADERS);
      res.flushHeaders();
    }
    res.write(': heartbeat\n\n');
    heartbeat = x.clock.setTimeout(beat, x.heartbeatMs);
  };
  heartbeat = x.clock.setTimeout(beat, x.heartbeatMs);

  let stream: ChatStream;
  try {
    stream = await x.pipeline.stream(request, x.call);
  } catch (error) {
    // Before any byte went out the client gets a normal error status; after heartbeats, an SSE error event.
    replyWithError(res, error, x.errorOptions);
    return;
  } finally {
    x.clock.clearTimeout(heartbeat);
  }
  // The head goes out with the committed first part, in the same write.
  if (!res.headersSent) res.writeHead(200, Object.assign({}, SSE_HEADERS, infoHeaders(stream.info)));

  const encoder = new ChunkEncoder(stream.info, request.stream_options?.include_usage === true);
  const writer = new StreamWriter(res);
  let failure: SwitchyardError | undefined;
  for await (const part of stream) {
    if (part.type === 'error') {
      failure = part.error;
      break;
    }
    const text = encoder.encode(part);
    if (text) writer.write(text);
    if (writer.backedUp) await drained(res);
    if (res.destroyed) break; // leaving the loop cancels the upstream attempt
  }
  if (res.destroyed) return;
  if (failure) {
    x.logger.warn({ event: 'stream_failed', requestId: x.call.requestId, errorKind: failure.kind, endpoint: failure.endpoint }, 'stream failed after commit');
    writer.end(sseErrorEvent(replyForError(failure, x.errorOptions).body));
  } else writer.end(encoder.end());
}
