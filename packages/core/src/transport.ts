/**
 * The production transport: undici's Dispatcher handler API on a keep-alive Agent, with no
 * retries of its own (one layer retries: the pipeline). Timeouts are enforced by the pipeline on
 * the injected clock through the request's AbortSignal, which the transport turns into an abort
 * of the dispatch itself (no signal goes into undici); undici's own timeouts are far-out backstops.
 */
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { SwitchyardError, isSwitchyardError } from './errors.js';
import { UndiciExchange } from './undici-response.js';

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

export function createDispatcher(options: UndiciTransportOptions = {}): Dispatcher {
  const connect = { timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca ? { ca: options.ca } : {}) };
  const common = {
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    connections: options.connections ?? 128,
    headersTimeout: BACKSTOP_MS,
    bodyTimeout: BACKSTOP_MS,
    connect,
  };
  if (options.useEnvProxy ?? envProxySet()) {
    return new EnvHttpProxyAgent({ ...common, ...(options.ca ? { requestTls: { ca: options.ca }, proxyTls: { ca: options.ca } } : {}) });
  }
  return new Agent(common);
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

/** `http://host:port/path?q` → origin and path without a URL object per request. */
function splitUrl(url: string): { origin: string; path: string } {
  const scheme = url.indexOf('://');
  const slash = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
  if (scheme < 0 || url.lastIndexOf('@', slash < 0 ? url.length : slash) > scheme) {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: parsed.pathname + parsed.search };
  }
  return slash < 0 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
}

export function createUndiciTransport(options: UndiciTransportOptions = {}): Transport {
  const ownDispatcher = options.dispatcher === undefined;
  let dispatcher: Dispatcher | undefined = options.dispatcher;
  const getDispatcher = () => (dispatcher ??= createDispatcher(options));
  return {
    request(req) {
      let exchange: UndiciExchange;
      try {
        const { origin, path } = splitUrl(req.url);
        exchange = new UndiciExchange(req);
        getDispatcher().dispatch({ origin, path, method: req.method, headers: req.headers, body: req.body, headersTimeout: BACKSTOP_MS, bodyTimeout: BACKSTOP_MS }, exchange);
      } catch (error) {
        return Promise.reject(transportError(error, req.signal));
      }
      return exchange.headersReceived;
    },
    async close() {
      if (ownDispatcher && dispatcher) await dispatcher.close();
    },
  };
}

/** Reads a whole body as text. */
export async function readBodyText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
