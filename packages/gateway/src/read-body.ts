/** Reads a JSON request body under a byte limit, answering the two failure modes with coded errors. */
import type { IncomingMessage } from 'node:http';
import { errorReply, type ErrorReply } from './openai-errors.js';

export class BodyError extends Error {
  constructor(readonly reply: ErrorReply) {
    super(reply.body.error.message);
  }
}

const tooLarge = (limit: number) => new BodyError(errorReply(413, `request body is larger than the gateway's limit of ${limit} bytes`, 'invalid_request_error', 'request_too_large'));

/**
 * Listens instead of async-iterating: leaving a `for await` destroys the socket, and an
 * oversized body must still get its 413 answer (the rest of it is read and dropped).
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) fail(tooLarge(limit));
      else chunks.push(chunk);
    });
    req.on('error', fail);
    // The error is built only when it is needed: stack traces cost more than the whole read.
    req.on('close', () => {
      if (!settled) fail(new Error('client closed the connection before the body was complete'));
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      try {
        resolve(JSON.parse(Buffer.concat(chunks, size).toString('utf8')));
      } catch {
        reject(new BodyError(errorReply(400, 'the request body is not valid JSON (send Content-Type: application/json with a JSON object)', 'invalid_request_error', 'invalid_json')));
      }
    });
  });
}
