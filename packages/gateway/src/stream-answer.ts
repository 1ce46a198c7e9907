/**
 * Serving a stream in any dialect, on the commit-point contract: nothing but SSE comment
 * heartbeats before the pipeline commits (a failure then is an ordinary error status in the
 * dialect's shape); after it, a failure ends the stream with the dialect's error event, never
 * with its clean closing. The dialect only encodes.
 */
import type { ChatRequest, ChatStream, SwitchyardError } from '@switchyard/core';
import type { StreamFraming } from '@switchyard/core/dialect';
import type { StreamEncoderFactory } from './dialect.js';
import type { Exchange } from './exchange.js';
import { drained, infoHeaders, StreamWriter } from './http-reply.js';
import { replyForError, replyWithError } from './openai-errors.js';

const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** A stream's head, a fresh literal each time: the answer's `x-switchyard-*` headers are added to it, not to a copy (core's copy-fields.ts). */
const streamHead = (contentType: string): Record<string, string> => ({ 'content-type': contentType, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });

const SSE_HEARTBEAT = ': heartbeat\n\n';

/**
 * Streams the answer to `request`; `encoderFor` makes the dialect's encoder once the stream
 * committed. `inClientTerms` lets a dialect whose requests were translated rename the fields an
 * error names before it is answered (see the Messages dialect's client-paths.ts).
 */
export async function serveStream(x: Exchange, request: ChatRequest, encoderFor: StreamEncoderFactory, inClientTerms?: (error: unknown) => unknown, framing?: StreamFraming): Promise<void> {
  const { res } = x;
  const contentType = framing ? framing.contentType : SSE_CONTENT_TYPE;
  const heartbeatText = framing ? framing.heartbeat : SSE_HEARTBEAT;
  const heartbeat = x.heartbeats.start(() => {
    if (!res.headersSent) {
      res.writeHead(200, streamHead(contentType));
      res.flushHeaders();
    }
    res.write(heartbeatText);
  });

  let stream: ChatStream;
  try {
    stream = await x.pipeline.stream(request, x.call);
  } catch (error) {
    const failure = inClientTerms ? inClientTerms(error) : error;
    // Before any byte went out the client gets a normal error status; after heartbeats, the stream's error ending.
    if (res.headersSent && framing?.error) {
      if (!res.writableEnded && !res.destroyed) res.end(framing.error(replyForError(failure, x.errorOptions)));
    } else replyWithError(x, failure);
    return;
  } finally {
    heartbeat.stop();
  }
  // The head goes out with the committed first part, in the same write.
  if (!res.headersSent) res.writeHead(200, infoHeaders(stream.info, streamHead(contentType)));

  const encoder = encoderFor(stream.info);
  const writer = new StreamWriter(res);
  let failure: SwitchyardError | undefined;
  // A batch per vendor chunk: its parts are encoded together and written at once.
  for await (const batch of stream.batches()) {
    let text = '';
    for (const part of batch) {
      if (part.type === 'error') {
        failure = part.error;
        break;
      }
      text += encoder.encode(part);
    }
    if (text) writer.write(text);
    if (failure) break;
    // Backpressure: upstream is not read while the client's buffer is full, for writeTimeoutMs at most.
    if (writer.backedUp) await drained(res, { ms: x.server.writeTimeoutMs, clock: x.clock });
    if (res.destroyed) break; // leaving the loop cancels the upstream attempt
  }
  if (res.destroyed) return;
  if (failure) {
    x.logger.warn({ event: 'stream_failed', requestId: x.call.requestId, errorKind: failure.kind, endpoint: failure.endpoint }, 'stream failed after commit');
    const reply = replyForError(failure, x.errorOptions);
    writer.end(encoder.fail ? encoder.fail(reply) : x.dialect.streamError(reply));
  } else {
    // The headers went out before the cut: an SSE comment (ignored by clients' parsers) says the answer was continued elsewhere.
    const { continuedOn, deployment } = stream.info;
    if (continuedOn) writer.write(x.errorOptions.exposeUpstream ? `: switchyard-continued from=${deployment} on=${continuedOn}\n\n` : ': switchyard-continued\n\n');
    const closing = encoder.end();
    writer.end(typeof closing === 'string' ? closing : await closing);
  }
}
