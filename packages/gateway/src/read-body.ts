/** Reads a JSON request body under a byte limit, a global byte budget and a deadline, answering each failure with a coded error. */
import type { IncomingMessage } from 'node:http';
import type { BodyBudget } from './body-budget.js';
import type { BodyDeadlines } from './body-deadlines.js';
import { errorReply, type ErrorReply } from './openai-errors.js';
import { utf8TextChecked } from '@switchyard/core/wire';

export class BodyError extends Error {
  constructor(
    readonly reply: ErrorReply,
    /** The rest of the body is not worth reading: answer and close the connection. */
    readonly closeConnection = false,
  ) {
    super(reply.body.error.message);
  }
}

const tooLarge = (limit: number) => new BodyError(errorReply(413, `request body is larger than the gateway's limit of ${limit} bytes`, 'invalid_request_error', 'request_too_large'), true);
const overBudget = () => new BodyError(errorReply(503, 'the gateway is reading too many request bodies at once; retry shortly', 'server_error', 'overloaded', null, { 'retry-after': '1' }), true);
const tooSlow = (ms: number) => new BodyError(errorReply(408, `the request body did not arrive within ${ms} ms`, 'invalid_request_error', 'request_timeout'), true);

export interface BodyReadOptions {
  /** Shared by every request being read. */
  budget?: BodyBudget;
  /** The whole body must arrive within their limit, or the request gets 408 (a slow body never holds a slot). */
  deadlines?: BodyDeadlines;
  /** An empty body (no bytes, or only whitespace) reads as `undefined` instead of invalid JSON. */
  allowEmpty?: boolean;
}

/** A body as it came (its text) and parsed. */
export interface JsonBody {
  value: unknown;
  text: string;
  /**
   * The bytes the text was decoded from, when they are exactly its UTF-8: a body sent on is then
   * copied rather than encoded again. Left out when the bytes were not valid UTF-8 (decoding
   * replaced something with U+FFFD) and the text would no longer say the same.
   */
  bytes?: Buffer;
}

/**
 * Listens instead of async-iterating: leaving a `for await` destroys the socket, and an
 * oversized body must still get its 413 answer (the rest of it is read and dropped).
 */
export function readJsonBody(req: IncomingMessage, limit: number, options: BodyReadOptions = {}): Promise<JsonBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  const { budget, deadlines } = options;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    deadlines?.watch(req, () => fail(tooSlow(deadlines.limitMs)));
    const finish = () => {
      settled = true;
      deadlines?.done(req);
      budget?.give(size);
    };
    const fail = (error: Error) => {
      if (settled) return;
      finish();
      chunks.length = 0;
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (size + chunk.length > limit) return fail(tooLarge(limit));
      if (budget && !budget.take(chunk.length)) return fail(overBudget());
      size += chunk.length;
      chunks.push(chunk);
    });
    req.on('error', fail);
    // The error is built only when it is needed: stack traces cost more than the whole read.
    req.on('close', () => {
      if (!settled) fail(new Error('client closed the connection before the body was complete'));
    });
    req.on('end', () => {
      if (settled) return;
      // Most bodies arrive in one chunk: decoded as it is, without a copy.
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      const { text, valid } = utf8TextChecked(bytes);
      finish();
      if (options.allowEmpty && text.trim() === '') return resolve({ value: undefined, text });
      try {
        const value: unknown = JSON.parse(text);
        resolve(valid ? { value, text, bytes } : { value, text });
      } catch {
        reject(new BodyError(errorReply(400, 'the request body is not valid JSON (send Content-Type: application/json with a JSON object)', 'invalid_request_error', 'invalid_json')));
      }
    });
  });
}
