/**
 * Browser safety. A gateway without keys (allowed on loopback only) would otherwise serve any web
 * page the user visits: a cross-site `text/plain` POST needs no preflight, and DNS rebinding
 * makes a foreign name resolve to 127.0.0.1. So a keyless gateway serves only `application/json`
 * POSTs, only under a loopback `Host` or one listed in `server.hosts`, and cross-origin requests
 * only from origins listed in `server.cors` (which also get CORS headers, keyed or not).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply, type ErrorReply } from './openai-errors.js';
import { isLoopbackHost } from './server-options.js';

export interface BrowserGuardOptions {
  keyless: boolean;
  /** Extra `Host` names (with or without `:port`) a keyless gateway answers to. */
  hosts: readonly string[];
  /** Origins (`https://app.example.com`) allowed to call from a browser. */
  cors: readonly string[];
}

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, x-request-id, traceparent',
  'access-control-max-age': '600',
};

/** `name` of a Host header value (`[::1]:8787` → `::1`, `localhost:1` → `localhost`). */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

export type GuardVerdict = { reply: ErrorReply } | { preflight: Record<string, string> } | undefined;

export function createBrowserGuard(options: BrowserGuardOptions): (req: IncomingMessage, res: ServerResponse) => GuardVerdict {
  const allowedHosts = new Set(options.hosts.map((h) => h.toLowerCase()));
  const allowedOrigins = new Set(options.cors);
  const hostAllowed = (host: string | undefined): boolean => {
    const name = host ? hostName(host) : '';
    return isLoopbackHost(name) || name.endsWith('.localhost') || allowedHosts.has(name) || (host !== undefined && allowedHosts.has(host.toLowerCase()));
  };
  // Clients send the same Host on every request: the last one allowed is not parsed again.
  let lastAllowedHost: string | undefined;
  return (req, res) => {
    const host = req.headers.host;
    if (options.keyless && (host === undefined || host !== lastAllowedHost)) {
      if (!hostAllowed(host)) {
        return { reply: errorReply(403, `this gateway has no keys and answers only to loopback host names or server.hosts, not "${host ?? ''}"`, 'invalid_request_error', 'host_not_allowed') };
      }
      lastAllowedHost = host;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== '' && !sameOrigin(origin, host)) {
      if (allowedOrigins.has(origin)) {
        res.setHeader('access-control-allow-origin', origin);
        res.setHeader('vary', 'Origin');
        if (req.method === 'OPTIONS') return { preflight: PREFLIGHT_HEADERS };
      } else if (options.keyless || req.method === 'OPTIONS') {
        return { reply: errorReply(403, `cross-origin requests from ${origin} are not allowed (list it in server.cors)`, 'invalid_request_error', 'origin_not_allowed') };
      }
    }
    if (options.keyless && req.method === 'POST' && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      return { reply: errorReply(415, 'send the request body as Content-Type: application/json', 'invalid_request_error', 'unsupported_media_type') };
    }
    return undefined;
  };
}
