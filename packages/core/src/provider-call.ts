/**
 * The built-in `call` tap: runs a provider codec through the transport, parses SSE, and holds
 * a stream's parts back until its commit point.
 */
import { applyErrorRules } from './error-rules.js';
import { SwitchyardError, toSwitchyardError } from './errors.js';
import type { Attempt, AttemptResult, RequestContext } from './contract.js';
import type { BuildOptions, ProviderHttpResponse, ProviderRequest, ProviderV1 } from './provider.js';
import { readBodyText, type Transport, type TransportRequest, type TransportResponse } from './transport.js';
import { isContentPart, type Candidate, type ChatRequest, type EmbeddingRequest, type StreamPart } from './types.js';
import { buildOrRefuse, unsentRequestError } from './request-failure.js';
import { readErrorBodyText } from './error-body.js';
import { addFields } from './copy-fields.js';
import { requestOriginOf } from './request-origin.js';
import { decodeAll, KeptStream } from './kept-stream.js';
import { attributeError } from './attribute-error.js';
import { DecodedStream, type StreamEnv } from './decode-stream.js';
import { responseTooLarge } from './response-limits.js';
import { authorizeWireRequest, joinUrl, providerBaseUrl } from './wire-request.js';
import type { AbortLink } from './abort-link.js';
import type { PartBatch } from './part-batches.js';

export { joinUrl } from './wire-request.js';

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a codec's `buildRequest` gets; the same two objects for every attempt. */
const STREAMING: BuildOptions = Object.freeze({ stream: true });
const NOT_STREAMING: BuildOptions = Object.freeze({ stream: false });

export interface CallEnv extends StreamEnv {
  transport: Transport;
  /** Bytes of a stream kept for a continuation after a cut (kept-stream.ts). */
  continuationMaxBytes: number;
}

/**
 * Sends a codec's request to the candidate's endpoint. Not async: the transport's own promise is
 * handed back (an async layer around it cost a promise and two microtasks per attempt); what
 * throws here is a rejection all the same.
 */
export function sendProviderRequest(env: Pick<CallEnv, 'transport'>, provider: ProviderV1, candidate: Candidate, built: ProviderRequest, attempt: Pick<Attempt, 'signal' | 'abort' | 'requestProgress'>, traceparent?: string): Promise<TransportResponse> {
  try {
    const base = providerBaseUrl(provider, candidate.endpoint);
    // The codec's own headers go as they are when nothing is added (a codec may share one object).
    let headers = built.headers;
    if (candidate.endpoint.headers || traceparent) {
      headers = addFields(addFields({} as Record<string, string>, candidate.endpoint.headers), built.headers);
      if (traceparent) headers.traceparent = traceparent;
    }
    const url = joinUrl(base, built.path);
    if (!provider.authorize) return send(env, built, url, headers, attempt);
    return authorizeWireRequest(provider, candidate, { url, method: built.method, headers, body: built.body }, attempt.signal).then((signed) => send(env, built, signed.url, signed.headers, attempt));
  } catch (error) {
    return Promise.reject(error);
  }
}

function send(env: Pick<CallEnv, 'transport'>, built: ProviderRequest, url: string, headers: Record<string, string>, attempt: Pick<Attempt, 'signal' | 'abort' | 'requestProgress'>): Promise<TransportResponse> {
  const { abort } = attempt;
  // Whether the vendor got the request decides whether a failed attempt is billed.
  const progress = env.transport.reportsRequestSent && attempt.requestProgress ? attempt : undefined;
  progress?.requestProgress!('pending');
  const onRequestSent = progress ? whenWritten(progress) : undefined;
  if (!abort) return env.transport.request({ url, method: built.method, headers, body: built.body, bodyBytes: built.bodyBytes, signal: attempt.signal, onRequestSent });
  return env.transport.request(new LinkedRequest(url, built.method, headers, built.body, built.bodyBytes, abort, onRequestSent));
}

/** `onRequestSent` in a function of its own: a closure holds its function's whole context, here only the attempt. */
function whenWritten(progress: Pick<Attempt, 'requestProgress'>): () => void {
  return () => progress.requestProgress!('written');
}

/**
 * A request that aborts through the core's AbortLink; its `signal` is made only if the transport
 * reads it (the built-in one listens on `abort`). A class, so that getter is one function on the
 * prototype. A getter in an object literal is a new function per request, and one made here,
 * beside a closure over the attempt, kept the whole attempt alive past its request through the
 * young generation's collections (a full collection freed it): each scavenge promoted 0.5 MB of
 * relayed streams' garbage instead of 0.13, in pauses of 4 ms instead of 2 (bench/README.md, "A
 * getter that kept every attempt").
 */
class LinkedRequest implements TransportRequest {
  constructor(
    readonly url: string,
    readonly method: TransportRequest['method'],
    readonly headers: Record<string, string>,
    readonly body: string | undefined,
    readonly bodyBytes: Uint8Array | undefined,
    readonly abort: AbortLink,
    readonly onRequestSent: (() => void) | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
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
  const parts = new DecodedStream(env, provider, attempt, ctx, res, decoder, keepText, kept);
  const head: StreamPart[] = [];
  const commitAtEnd = ctx.classification.commit === 'end';
  // Read a batch at a time (a chunk's parts): what follows the commit point in its batch is put back for the committed stream.
  reading: for (;;) {
    let next: IteratorResult<PartBatch, undefined>;
    try {
      next = await parts.nextBatch();
    } catch (error) {
      throw toSwitchyardError(error);
    }
    if (next.done) break;
    const batch = next.value;
    for (let i = 0; i < batch.length; i++) {
      const part = batch[i]!;
      if (part.type === 'error') {
        await parts.return();
        throw part.error;
      }
      head.push(part);
      if (part.type === 'finish' || (!commitAtEnd && isContentPart(part))) {
        if (i + 1 < batch.length) parts.putBack(batch.slice(i + 1));
        break reading;
      }
    }
  }
  attempt.committed();
  return { type: 'stream', head, rest: parts, headers: res.headers };
}
