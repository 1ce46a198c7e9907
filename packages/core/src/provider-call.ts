/**
 * The built-in `call` tap: runs a provider codec through the transport, parses SSE, and holds
 * a stream's parts back until its commit point.
 */
import { candidateRef } from './candidate-ref.js';
import { applyErrorRules } from './error-rules.js';
import { isSwitchyardError, SwitchyardError, toSwitchyardError } from './errors.js';
import type { Attempt, AttemptResult, RequestContext } from './contract.js';
import type { BuildOptions, DecodedSseEvent, ProviderHttpResponse, ProviderRequest, ProviderV1, StreamDecoder } from './provider.js';
import { SseParser, type SseEvent } from './sse.js';
import { Utf8Chunks } from './utf8-chunks.js';
import { readBodyText, type Transport, type TransportResponse } from './transport.js';
import { isContentPart, type Candidate, type ChatRequest, type EmbeddingRequest, type StreamPart } from './types.js';
import type { SwitchyardEventBus } from './events.js';
import { redactSecrets } from './redact-secrets.js';
import { buildOrRefuse, unsentRequestError } from './request-failure.js';
import { readErrorBodyText } from './error-body.js';
import { addFields } from './copy-fields.js';
import { requestOriginOf } from './request-origin.js';
import { keepWireText, unreadEvents } from './wire-events.js';
import { KeptStream, setKeptStream, shapedAsJsonObject } from './kept-stream.js';
import { PartBatches, type PartBatch } from './part-batches.js';
import { responseTooLarge, type ResponseLimits } from './response-limits.js';
import { authorizeWireRequest, joinUrl, providerBaseUrl } from './wire-request.js';

export { joinUrl } from './wire-request.js';


function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Stamps where an error came from and makes sure no key of the candidate leaks in its message. */
export function attributeError(error: SwitchyardError, candidate: Candidate): SwitchyardError {
  error.endpoint ??= candidate.endpoint.name;
  error.deployment ??= candidate.deploymentId;
  error.provider ??= candidate.provider;
  error.keyId ??= candidate.keyId;
  const clean = redactSecrets(error.message, [candidate.apiKey]);
  if (clean !== error.message) error.message = clean;
  return error;
}

/** What a codec's `buildRequest` gets; the same two objects for every attempt. */
const STREAMING: BuildOptions = Object.freeze({ stream: true });
const NOT_STREAMING: BuildOptions = Object.freeze({ stream: false });

export interface CallEnv {
  transport: Transport;
  events: SwitchyardEventBus;
  /** How much of a vendor's answer is read (response-limits.ts). */
  responseLimits: Readonly<ResponseLimits>;
  /** Bytes of a stream kept for a continuation after a cut (kept-stream.ts). */
  continuationMaxBytes: number;
}

export async function sendProviderRequest(env: Pick<CallEnv, 'transport'>, provider: ProviderV1, candidate: Candidate, built: ProviderRequest, attempt: Pick<Attempt, 'signal' | 'abort' | 'requestProgress'>, traceparent?: string): Promise<TransportResponse> {
  const base = providerBaseUrl(provider, candidate.endpoint);
  // The codec's own headers go as they are when nothing is added (a codec may share one object).
  let headers = built.headers;
  if (candidate.endpoint.headers || traceparent) {
    headers = addFields(addFields({} as Record<string, string>, candidate.endpoint.headers), built.headers);
    if (traceparent) headers.traceparent = traceparent;
  }
  let url = joinUrl(base, built.path);
  if (provider.authorize) ({ url, headers } = await authorizeWireRequest(provider, candidate, { url, method: built.method, headers, body: built.body }, attempt.signal));
  const { abort } = attempt;
  // Whether the vendor got the request decides whether a failed attempt is billed.
  const progress = env.transport.reportsRequestSent && attempt.requestProgress ? attempt : undefined;
  progress?.requestProgress!('pending');
  const onRequestSent = progress ? () => progress.requestProgress!('written') : undefined;
  if (!abort) return env.transport.request({ url, method: built.method, headers, body: built.body, signal: attempt.signal, onRequestSent });
  // The signal is made only if the transport reads it (the built-in one listens on `abort`).
  return env.transport.request({
    url,
    method: built.method,
    headers,
    body: built.body,
    abort,
    onRequestSent,
    get signal() {
      return abort.signal;
    },
  });
}

async function readHttpResponse(res: TransportResponse, limitBytes: number): Promise<ProviderHttpResponse> {
  const declared = Number(res.headers['content-length']);
  let text: string;
  try {
    if (declared > limitBytes) throw responseTooLarge('answer body', limitBytes, 'bytes');
    text = res.text ? await res.text(limitBytes) : await readBodyText(res.body, limitBytes);
  } catch (error) {
    res.discard();
    throw error;
  }
  return { status: res.status, headers: res.headers, text, json: parseJson(text) };
}

async function failFromResponse(provider: ProviderV1, candidate: Candidate, res: TransportResponse): Promise<never> {
  const text = await readErrorBodyText(res);
  const http: ProviderHttpResponse = { status: res.status, headers: res.headers, text, json: parseJson(text) };
  let error: SwitchyardError;
  try {
    error = provider.classifyError(http, candidate);
  } catch (cause) {
    error = new SwitchyardError('server', `${provider.id} could not classify a ${res.status} answer`, { status: res.status, cause });
  }
  error = applyErrorRules(candidate.endpoint.errors, http, error);
  throw attributeError(error, candidate);
}

export async function callProvider(env: CallEnv, provider: ProviderV1, attempt: Attempt, ctx: RequestContext): Promise<AttemptResult> {
  const { candidate } = attempt;
  if (ctx.kind === 'embeddings') {
    if (!provider.buildEmbeddingsRequest || !provider.parseEmbeddingsResponse) {
      throw new SwitchyardError('bad-request', `provider ${provider.id} does not serve embeddings`, { retryable: false });
    }
    const res = await sendProviderRequest(env, provider, candidate, buildOrRefuse(provider.id, () => provider.buildEmbeddingsRequest!(attempt.request as EmbeddingRequest, candidate)), attempt, attempt.traceparent ?? ctx.traceparent);
    attempt.headersReceived();
    if (res.status >= 300) await failFromResponse(provider, candidate, res);
    const http = await readHttpResponse(res, env.responseLimits.maxBodyBytes);
    if (http.json === undefined) throw new SwitchyardError('server', `${provider.id} sent a body that is not JSON`, { status: res.status });
    return { type: 'embeddings', response: provider.parseEmbeddingsResponse(http, candidate), headers: res.headers };
  }
  const request = attempt.request as ChatRequest;
  let built: ProviderRequest;
  try {
    built = provider.buildRequest(request, candidate, attempt.stream ? STREAMING : NOT_STREAMING);
  } catch (error) {
    throw unsentRequestError(provider.id, error);
  }
  const res = await sendProviderRequest(env, provider, candidate, built, attempt, attempt.traceparent ?? ctx.traceparent);
  attempt.headersReceived();
  if (res.status >= 300) await failFromResponse(provider, candidate, res);
  if (!attempt.stream) {
    const http = await readHttpResponse(res, env.responseLimits.maxBodyBytes);
    if (http.json === undefined) throw new SwitchyardError('server', `${provider.id} sent a body that is not JSON: ${http.text.slice(0, 80)}`, { status: res.status });
    return { type: 'response', response: provider.parseResponse(http, candidate), headers: res.headers };
  }
  const decoder = provider.createStreamDecoder(candidate, request);
  // The client speaks the vendor's dialect: each event's text travels with its parts (wire-events.ts).
  const keepText = decoder.wireFormat !== undefined && requestOriginOf(request, decoder.wireFormat) !== undefined;
  // Lazy pass-through (kept-stream.ts): SSE only, the core's own attempts (a plugin-run one is read part by part by its plugin).
  const kept =
    keepText && !provider.createFrameDecoder && decoder.readAfterCommit && attempt.initiator === 'core' && ctx.classification.commit !== 'end'
      ? new KeptStream(env.continuationMaxBytes, (text) => decodeAll(provider, candidate, request, env.responseLimits.maxEventChars, text))
      : undefined;
  const parts = new PartBatches(decodeStream(env, provider, attempt, ctx, res, decoder, keepText, kept));
  if (kept) setKeptStream(parts, kept);
  const head: StreamPart[] = [];
  const commitAtEnd = ctx.classification.commit === 'end';
  for (;;) {
    let next: IteratorResult<StreamPart>;
    try {
      next = await parts.next();
    } catch (error) {
      throw toSwitchyardError(error);
    }
    if (next.done) break;
    const part = next.value;
    if (part.type === 'error') {
      await parts.return();
      throw part.error;
    }
    head.push(part);
    if (part.type === 'finish' || (!commitAtEnd && isContentPart(part))) break;
  }
  attempt.committed();
  return { type: 'stream', head, rest: parts, headers: res.headers };
}

/** An event as SSE text again (the vendor's data as it came, without a JSON round trip). */
function sseText(event: SseEvent): string {
  const data = event.data.includes('\n') ? event.data.replace(/\n/g, '\ndata: ') : event.data;
  return event.event ? `event: ${event.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/** Every part of a kept stream text, through a fresh decoder: what a lazy pass-through replays when the answer is needed. */
function decodeAll(provider: ProviderV1, candidate: Candidate, request: ChatRequest, maxEventChars: number, text: string): StreamPart[] {
  const parser = new SseParser(maxEventChars);
  const decoder = provider.createStreamDecoder(candidate, request);
  const parts: StreamPart[] = [];
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.data === '[DONE]') break;
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      continue;
    }
    (event as DecodedSseEvent).json = json;
    for (const part of decoder.push(event as DecodedSseEvent)) parts.push(part);
    if (decoder.done) break;
  }
  for (const part of decoder.end()) parts.push(part);
  return parts;
}

/** Chat Completions' end (`data: [DONE]`, the space optional) at `start`, always decoded. */
const isDoneAt = (text: string, start: number): boolean => text.startsWith('data: [DONE]', start) || text.startsWith('data:[DONE]', start);

/**
 * The vendor stream as unified parts, a batch per chunk of the body (part-batches.ts). Ends
 * normally only after the vendor's finish signal; a close without it throws `stream-cut`. An
 * idle abort after the finish signal ends it cleanly.
 *
 * A pass-through (the client speaks the vendor's SSE dialect) whose committed stream asked for
 * it reads lazily after the commit point (kept-stream.ts): complete events go on as the vendor's
 * text, and only those `readAfterCommit` names, those not shaped as a whole JSON object, and every
 * event after the finish are decoded.
 */
async function* decodeStream(env: CallEnv, provider: ProviderV1, attempt: Attempt, ctx: RequestContext, res: TransportResponse, decoder: StreamDecoder, keepText: boolean, kept: KeptStream | undefined): AsyncGenerator<PartBatch, void, undefined> {
  const { candidate } = attempt;
  const frames = provider.createFrameDecoder?.(candidate, env.responseLimits);
  const sse = frames ? undefined : new SseParser(env.responseLimits.maxEventChars);
  const parser = frames ?? sse!;
  const utf8 = kept ? new Utf8Chunks() : undefined;
  /** Events are split here (`passThrough`) unless a lone CR line end proved the text search unfit; `lazy` once they may go unread. */
  let splitting = kept !== undefined;
  let lazy = false;
  /** A pass-through's text after its last complete event. */
  let tail = '';
  const readAfterCommit = decoder.readAfterCommitIn
    ? (text: string, start: number, end: number) => decoder.readAfterCommitIn!(text, start, end)
    : (text: string, start: number, end: number) => decoder.readAfterCommit!(text.slice(start, end));
  let committed = false;
  let lastForwardable = true;
  let pendingText = '';
  let finished = false;
  let complete = false;
  let sawDone = false;
  let malformed = 0;
  /** Decodes a batch of SSE events synchronously; the async generator only hands parts out. */
  const decode = (events: SseEvent[], out: StreamPart[]): StreamPart[] => {
    for (const event of events) {
      if (event.data === '[DONE]') {
        sawDone = true;
        break;
      }
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        malformed++;
        if (env.events.listenerCount('stream:malformed')) env.events.emit('stream:malformed', { requestId: ctx.id, candidate: candidateRef(candidate), data: event.data.slice(0, 200) });
        continue;
      }
      (event as DecodedSseEvent).json = json;
      const parts = decoder.push(event as DecodedSseEvent);
      if (keepText) keepTexts(event, parts);
      collect(parts, out);
      if (decoder.done) {
        sawDone = true;
        break;
      }
    }
    return out;
  };
  /** The event's text goes with its first part (and part-less events before it); its other parts are covered by it. */
  const keepTexts = (event: SseEvent, parts: StreamPart[]): void => {
    lastForwardable = decoder.forwardable?.(event as DecodedSseEvent) !== false;
    if (!lastForwardable) {
      pendingText = '';
      return;
    }
    pendingText += sseText(event);
    if (parts.length === 0 || parts[0]!.type === 'error') return;
    keepWireText(parts[0]!, pendingText);
    for (let i = 1; i < parts.length; i++) keepWireText(parts[i]!, '');
    pendingText = '';
  };
  const collect = (parts: StreamPart[], out: StreamPart[]): StreamPart[] => {
    for (const part of parts) {
      if (part.type === 'finish') finished = true;
      else if (part.type === 'error') attributeError(part.error, candidate);
      else if (!committed && isContentPart(part)) committed = true;
      out.push(part);
    }
    return out;
  };
  /**
   * A chunk read lazily (kept-stream.ts), split into events here at blank lines: an event
   * `readAfterCommit` does not name goes on as the vendor's text (one part for a run of them),
   * never a half event; the others are decoded.
   */
  const passThrough = (text: string): PartBatch => {
    let input = tail + text;
    if (input.includes('\r')) {
      input = input.replaceAll('\r\n', '\n');
      const cr = input.indexOf('\r');
      // A CR line end the text search does not know (one split off at the end waits for its LF): the parser takes over.
      if (cr !== -1 && cr !== input.length - 1) {
        splitting = false;
        lazy = false;
        tail = '';
        return decode(sse!.push(input), []);
      }
    }
    const cut = input.lastIndexOf('\n\n');
    const end = cut < 0 ? 0 : cut + 2;
    tail = input.slice(end);
    if (tail.length > env.responseLimits.maxEventChars) throw responseTooLarge('stream event', env.responseLimits.maxEventChars, 'characters');
    const out: StreamPart[] = [];
    /** Where the run of events going on unread starts (-1: none); it ends where the loop is. */
    let unreadFrom = -1;
    for (let at = 0; at < end && !sawDone; ) {
      const from = at;
      at = input.indexOf('\n\n', from) + 2;
      // Asked in place (no event cut out of the chunk), in the order the events come.
      if (!finished && !isDoneAt(input, from) && !readAfterCommit(input, from, at) && shapedAsJsonObject(input, from, at)) {
        if (unreadFrom < 0) unreadFrom = from;
        continue;
      }
      if (unreadFrom >= 0) {
        out.push(unreadRun(input, unreadFrom, from));
        unreadFrom = -1;
      }
      decode(sse!.push(input.slice(from, at)), out);
    }
    if (unreadFrom >= 0 && !finished && !sawDone) out.push(unreadRun(input, unreadFrom, end));
    return out;
  };
  const unreadRun = (input: string, from: number, to: number): StreamPart => {
    const unread = input.slice(from, to);
    kept!.unreadChars += unread.length;
    const part = unreadEvents(pendingText + unread);
    pendingText = '';
    return part;
  };
  /**
   * Whether this chunk may be read lazily. Not the chunk that holds the commit point: it is decoded
   * whole (decoding the rest of a short answer costs less than splitting it, and the reader is not
   * known yet). From the next chunk on, once the committed stream's reader proved a relay; a reader
   * of parts gets every event decoded and nothing kept.
   */
  const readsLazily = (): boolean => {
    if (lazy || !committed || !splitting || finished || !lastForwardable) return lazy;
    if (!kept!.lazy) {
      kept!.release();
      splitting = false;
      return false;
    }
    // The parser holds nothing of an event, so the text from here on can be split at blank lines.
    lazy = sse!.atEventBoundary;
    return lazy;
  };
  try {
    for await (const chunk of res.body) {
      attempt.chunkReceived();
      if (!kept) {
        // An empty batch would cost its reader a generator step for nothing (most chunks hold an event).
        const batch = decode(parser.push(chunk), []);
        if (batch.length > 0) yield batch;
      } else {
        const text = utf8!.decode(chunk);
        kept.keep(text, chunk.byteLength);
        const batch = readsLazily() ? passThrough(text) : decode(sse!.push(text), []);
        if (batch.length > 0) yield batch;
      }
      if (sawDone) break;
    }
    // What is left without its blank line is decoded, never forwarded as it is (a half event must not reach the client).
    if (!sawDone) yield decode(kept ? [...sse!.push(tail + utf8!.end()), ...sse!.end()] : parser.end(), []);
    complete = finished;
  } catch (error) {
    const err = toSwitchyardError(error);
    // The answer was complete; the connection just did not close (or sent no [DONE]).
    if (finished && (err.kind === 'idle-timeout' || err.kind === 'network')) {
      yield collect(decoder.end(), []);
      return;
    }
    throw attributeError(err, candidate);
  } finally {
    // A complete answer keeps its keep-alive connection; anything else drops it.
    if (complete && res.release) res.release();
    else res.discard();
  }
  const last = collect(decoder.end(), []);
  if (last.length > 0) yield last;
  if (!finished) {
    throw attributeError(
      new SwitchyardError('stream-cut', `${provider.id} stream ended without a finish signal${malformed ? ` (${malformed} malformed events skipped)` : ''}`),
      candidate,
    );
  }
}
