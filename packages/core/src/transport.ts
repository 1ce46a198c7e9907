/**
 * The production transport: undici's Dispatcher handler API on a keep-alive Agent, with no
 * retries of its own (one layer retries: the pipeline). Timeouts are enforced by the pipeline on
 * the injected clock through the request's AbortSignal, which the transport turns into an abort
 * of the dispatch itself (no signal goes into undici); undici's own timeouts are far-out backstops.
 */
import { createWarmConnector, type WarmConnector } from './warm-connector.js';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { transportError } from './transport-error.js';
import type { Transport } from './contract.js';
import { UndiciExchange } from './undici-response.js';
import { responseTooLarge } from './response-limits.js';
import { trackedBody } from './request-sent.js';

export type { Transport, TransportRequest, TransportResponse } from './contract.js';

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
/** Sockets per origin when the config does not say (`upstream.connections`). */
const DEFAULT_CONNECTIONS = 128;

function envProxySet(): boolean {
  const env = process.env;
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

export function createDispatcher(options: UndiciTransportOptions = {}, connector?: WarmConnector): Dispatcher {
  const tls = { timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca ? { ca: options.ca } : {}) };
  const connect = connector ?? tls;
  const common = {
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    connections: options.connections ?? DEFAULT_CONNECTIONS,
    headersTimeout: BACKSTOP_MS,
    bodyTimeout: BACKSTOP_MS,
    connect,
  };
  if (options.useEnvProxy ?? envProxySet()) {
    return new EnvHttpProxyAgent({ ...common, connect: tls, ...(options.ca ? { requestTls: { ca: options.ca }, proxyTls: { ca: options.ca } } : {}) });
  }
  return new Agent(common);
}

export { transportError } from './transport-error.js';

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
  // Direct connections only: behind a proxy the connection that matters is the proxy's.
  const connector = ownDispatcher && !(options.useEnvProxy ?? envProxySet()) ? createWarmConnector({ timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca ? { ca: options.ca } : {}) }) : undefined;
  const getDispatcher = () => (dispatcher ??= createDispatcher(options, connector));
  return {
    ...(connector ? { preconnect: (url: string) => connector.warm(url) } : {}),
    // Only undici's own clients publish on its diagnostics channels; a dispatcher passed in may not.
    reportsRequestSent: ownDispatcher,
    ...(ownDispatcher ? { connectionsPerOrigin: options.connections ?? DEFAULT_CONNECTIONS } : {}),
    request(req) {
      let exchange: UndiciExchange;
      try {
        const { origin, path } = splitUrl(req.url);
        exchange = new UndiciExchange(req);
        const payload = req.bodyBytes ?? req.body;
        const body = ownDispatcher && req.onRequestSent && payload ? trackedBody(payload, req.onRequestSent) : payload;
        getDispatcher().dispatch({ origin, path, method: req.method, headers: req.headers, body, headersTimeout: BACKSTOP_MS, bodyTimeout: BACKSTOP_MS }, exchange);
      } catch (error) {
        return Promise.reject(transportError(error, req.abort ?? req.signal));
      }
      return exchange.headersReceived;
    },
    async close() {
      connector?.close();
      if (ownDispatcher && dispatcher) await dispatcher.close();
    },
  };
}

/** Reads a whole body as text; past `limitBytes` it stops reading and rejects with a coded `server` error (the caller drops the connection). */
export async function readBodyText(body: AsyncIterable<Uint8Array>, limitBytes = Number.POSITIVE_INFINITY): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > limitBytes) throw responseTooLarge('answer body', limitBytes, 'bytes');
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
