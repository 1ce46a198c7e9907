/**
 * The msw → undici bridge. msw cannot see requests made through undici's own client (mswjs/msw
 * #2165), yet the production transport is undici. This Dispatcher answers each request from msw
 * handlers through `getResponse()`, so the very same handlers drive `setupServer` (global fetch)
 * and the real undici path (`createPipeline({ dispatcher })`, `undici.request(url, { dispatcher })`).
 */
import { CHAOS_ERRORS } from './error-codes.js';
import { getResponse, type RequestHandler } from 'msw';
import { Dispatcher, errors } from 'undici';
import { SwitchyardError } from '@switchyard/core';
import { toResponseSink, type ResponseSink } from './response-sink.js';

export type HandlerSource = readonly RequestHandler[] | (() => readonly RequestHandler[]);

const noop = () => undefined;

/**
 * A socket delivers each read in its own macrotask; doing the same lets the consumer take every
 * chunk before a later error destroys its buffer (undici drops unread data on error).
 */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A socket-level failure exactly as undici reports a peer that went away. */
function connectionReset(cause?: unknown): Error {
  const error = new errors.SocketError('other side closed');
  if (cause !== undefined) (error as { cause?: unknown }).cause = cause;
  return error;
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(noop);
  return aborted;
}

type RawHeaders = Dispatcher.DispatchOptions['headers'];

function toHeaders(raw: RawHeaders): Headers {
  const headers = new Headers();
  if (!raw) return headers;
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(String(raw[i]), String(raw[i + 1]));
    return headers;
  }
  const entries = Symbol.iterator in Object(raw) ? (raw as Iterable<[string, string | string[] | undefined]>) : Object.entries(raw);
  for (const [name, value] of entries) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
  }
  return headers;
}

async function toBody(body: Dispatcher.DispatchOptions['body']): Promise<BodyInit | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body as BodyInit;
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const parts: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<string | Uint8Array>) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(parts);
  }
  return body as unknown as BodyInit;
}

async function toRequest(opts: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<Request> {
  const method = (opts.method ?? 'GET').toUpperCase();
  const url = new URL(opts.path, String(opts.origin ?? 'http://localhost'));
  const body = method === 'GET' || method === 'HEAD' ? undefined : await toBody(opts.body);
  return new Request(url, { method, headers: toHeaders(opts.headers), body, signal, duplex: 'half' } as RequestInit);
}

/** msw's own answer to a resolver that throws (so both paths agree). */
function unhandledExceptionResponse(error: unknown): Response {
  const body = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error;
  return new Response(JSON.stringify(body), { status: 500, statusText: 'Unhandled Exception', headers: { 'content-type': 'application/json' } });
}

async function resolveResponse(handlers: readonly RequestHandler[], request: Request): Promise<Response> {
  let response: Response | undefined;
  try {
    response = await getResponse([...handlers], request);
  } catch (error) {
    if (request.signal.aborted) throw request.signal.reason;
    return unhandledExceptionResponse(error);
  }
  if (!response) {
    throw new SwitchyardError('config', `no msw handler answered ${request.method} ${request.url}`, { code: CHAOS_ERRORS.SWITCHYARD_ERR_MSW_UNHANDLED });
  }
  return response;
}

async function pumpBody(body: ReadableStream<Uint8Array>, sink: ResponseSink, signal: AbortSignal, aborted: Promise<never>): Promise<void> {
  const reader = body.getReader();
  // msw resolvers may keep a stream open forever (stalls): the abort must reach the source.
  const cancel = () => void reader.cancel(signal.reason).catch(noop);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      if (sink.paused) await Promise.race([sink.waitUntilResumed(), aborted]);
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await Promise.race([reader.read(), aborted]);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        // The handler's stream errored: to the client that is a peer dying mid-body.
        await nextMacrotask();
        throw connectionReset(error);
      }
      // Cancelling the reader (on abort) also ends pending reads as `done`: that is no success.
      if (signal.aborted) throw signal.reason;
      if (chunk.done) return;
      const value = chunk.value as Uint8Array | string;
      const bytes = typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      if (bytes.byteLength === 0) continue;
      sink.data(bytes);
      await nextMacrotask();
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

export class MswDispatcher extends Dispatcher {
  private readonly source: () => readonly RequestHandler[];
  private readonly inflight = new Map<AbortController, Promise<void>>();
  private closed = false;

  constructor(handlers: HandlerSource) {
    super();
    this.source = typeof handlers === 'function' ? (handlers as () => readonly RequestHandler[]) : () => handlers as readonly RequestHandler[];
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const sink = toResponseSink(handler);
    const abortController = new AbortController();
    const work = this.answer(opts, sink, abortController).finally(() => this.inflight.delete(abortController));
    this.inflight.set(abortController, work);
    return true;
  }

  private async answer(opts: Dispatcher.DispatchOptions, sink: ResponseSink, abortController: AbortController): Promise<void> {
    const { signal } = abortController;
    const aborted = rejectOnAbort(signal);
    try {
      // undici calls handlers asynchronously; so do we, after the caller's dispatch() returned.
      await Promise.resolve();
      sink.start((reason) => abortController.abort(reason ?? new errors.RequestAbortedError()));
      if (this.closed) throw new errors.ClientClosedError();
      if (signal.aborted) throw signal.reason;
      if (opts.upgrade || opts.method === 'CONNECT') throw new errors.NotSupportedError('the msw dispatcher does not support upgrades or CONNECT');
      const request = await toRequest(opts, signal);
      // msw's delay('infinite') ignores the request's signal: the race is what lets aborts win.
      const response = await Promise.race([resolveResponse(this.source(), request), aborted]);
      if (response.type === 'error') throw connectionReset();
      sink.headers(response.status, response.headers, response.statusText);
      if (response.body && !sink.finished) await pumpBody(response.body, sink, signal, aborted);
      sink.end();
    } catch (error) {
      sink.error(signal.aborted ? (signal.reason as Error) : error instanceof Error ? error : new Error(String(error)));
    }
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    this.closed = true;
    const done = Promise.all(this.inflight.values()).then(noop);
    if (callback) void done.then(callback);
    else return done;
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const cb = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const reason = (typeof errOrCallback === 'object' && errOrCallback) || new errors.ClientDestroyedError();
    this.closed = true;
    for (const controller of this.inflight.keys()) controller.abort(reason);
    const done = Promise.all(this.inflight.values()).then(noop);
    if (cb) void done.then(cb);
    else return done;
  }
}

/**
 * An undici Dispatcher answering every request from msw handlers. Pass the array, or a function
 * returning the current handlers (read per request).
 */
export function createMswDispatcher(handlers: HandlerSource): MswDispatcher {
  return new MswDispatcher(handlers);
}
