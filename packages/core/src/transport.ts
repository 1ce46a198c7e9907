/**
 * The production transport: undici's request API on a keep-alive Agent, with no retries of its
 * own (one layer retries: the pipeline). Timeouts are enforced by the pipeline on the injected
 * clock through the AbortSignal; undici's own timeouts are far-out backstops.
 */
import { createWarmConnector, type WarmConnector } from './warm-connector.js';
import { Agent, EnvHttpProxyAgent, request as undiciRequest, type Dispatcher } from 'undici';
import { SwitchyardError, isSwitchyardError } from './errors.js';

export interface TransportRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array>;
  /** Drops the connection without reading the rest of the body (failures, aborts). */
  discard(): void;
  /**
   * The answer is complete but the body may not have ended yet (bytes after `[DONE]`): read
   * the rest in the background, briefly, so the keep-alive connection can be reused.
   */
  release?(): void;
  /** Reads the whole body as text (faster than iterating `body` when the transport has it). */
  text?(): Promise<string>;
}

export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Opens a connection to the URL's origin ahead of need (warm backups); false when it could not. */
  preconnect?(url: string): Promise<boolean>;
  close?(): Promise<void>;
}

export interface UndiciTransportOptions {
  /** A dispatcher to use instead of the built-in Agent (tests: the msw bridge). */
  dispatcher?: Dispatcher;
  connectTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Max sockets per origin. */
  connections?: number;
  /** Extra CA certificates (PEM) for upstreams behind a corporate CA. */
  ca?: string | string[];
  /** Honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY (default: when one of them is set). */
  useEnvProxy?: boolean;
}

const BACKSTOP_MS = 15 * 60_000;

function envProxySet(): boolean {
  const env = process.env;
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

export function createDispatcher(options: UndiciTransportOptions = {}, connector?: WarmConnector): Dispatcher {
  const tls = { timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca ? { ca: options.ca } : {}) };
  const connect = connector ?? tls;
  const common = {
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    connections: options.connections ?? 128,
    headersTimeout: BACKSTOP_MS,
    bodyTimeout: BACKSTOP_MS,
    connect,
  };
  if (options.useEnvProxy ?? envProxySet()) {
    return new EnvHttpProxyAgent({ ...common, connect: tls, ...(options.ca ? { requestTls: { ca: options.ca }, proxyTls: { ca: options.ca } } : {}) });
  }
  return new Agent(common);
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Maps socket-level failures to the taxonomy; an abort carries the pipeline's own reason. */
export function transportError(error: unknown, signal: AbortSignal): SwitchyardError {
  if (signal.aborted) {
    const reason = signal.reason;
    if (isSwitchyardError(reason)) return reason;
    return new SwitchyardError('cancelled', 'request was cancelled', { cause: reason });
  }
  if (isSwitchyardError(error)) return error;
  const code = (error as { code?: string } | undefined)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new SwitchyardError('timeout', `upstream timed out (${code})`, { cause: error });
  }
  return new SwitchyardError('network', `connection failed: ${code ? `${code} ` : ''}${message}`, { cause: error });
}

export function createUndiciTransport(options: UndiciTransportOptions = {}): Transport {
  const ownDispatcher = options.dispatcher === undefined;
  let dispatcher: Dispatcher | undefined = options.dispatcher;
  // Direct connections only: behind a proxy the connection that matters is the proxy's.
  const connector = ownDispatcher && !(options.useEnvProxy ?? envProxySet()) ? createWarmConnector({ timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca ? { ca: options.ca } : {}) }) : undefined;
  const getDispatcher = () => (dispatcher ??= createDispatcher(options, connector));
  return {
    ...(connector ? { preconnect: (url: string) => connector.warm(url) } : {}),
    async request(req) {
      try {
        const res = await undiciRequest(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal: req.signal,
          dispatcher: getDispatcher(),
          headersTimeout: BACKSTOP_MS,
          bodyTimeout: BACKSTOP_MS,
        });
        const body = res.body as unknown as UndiciBody;
        return {
          status: res.statusCode,
          headers: flattenHeaders(res.headers),
          body: wrapBody(body, req.signal),
          discard: () => destroyQuietly(body),
          release: () => releaseBody(body),
          text: async () => {
            try {
              return await body.text();
            } catch (error) {
              destroyQuietly(body);
              throw transportError(error, req.signal);
            }
          },
        };
      } catch (error) {
        throw transportError(error, req.signal);
      }
    },
    async close() {
      connector?.close();
      if (ownDispatcher && dispatcher) await dispatcher.close();
    },
  };
}

type UndiciBody = AsyncIterable<Uint8Array> & { text(): Promise<string>; destroy(): void; on(event: 'error', fn: () => void): unknown; dump(opts?: { limit?: number; signal?: AbortSignal }): Promise<void>; readableEnded?: boolean };

/** Destroying an unread body makes undici emit an AbortError that nobody listens to. */
function destroyQuietly(body: UndiciBody): void {
  body.on('error', () => undefined);
  body.destroy();
}

const RELEASE_LIMIT_BYTES = 64 * 1024;
const RELEASE_WAIT_MS = 1000;

function releaseBody(body: UndiciBody): void {
  if (body.readableEnded) return;
  body.on('error', () => undefined);
  const give = AbortSignal.timeout(RELEASE_WAIT_MS);
  body.dump({ limit: RELEASE_LIMIT_BYTES, signal: give }).catch(() => destroyQuietly(body));
}

/**
 * Iterating the body: errors are mapped to the taxonomy. Leaving the loop early does not
 * destroy the socket: the reader decides between discard() and release().
 */
async function* wrapBody(body: UndiciBody, signal: AbortSignal): AsyncIterable<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  } catch (error) {
    destroyQuietly(body);
    throw transportError(error, signal);
  }
}

/** Reads a whole body as text. */
export async function readBodyText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
