/**
 * GET /status (JSON, or the page with `Accept: text/html`) and GET /status.html. Browsers
 * authenticate with HTTP Basic (any user name, a gateway key as password) so the page can
 * refresh itself; API clients send the usual bearer key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http-reply.js';
import type { StatusReport } from './status-board.js';
import { statusPage } from './status-page.js';

export const STATUS_PATHS = new Set(['/status', '/status.html']);
const DEFAULT_REFRESH_MS = 5_000;

/** The password of `Basic base64(user:key)`: browsers send the gateway key that way. */
export function basicPassword(authorization: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

export function wantsHtml(req: IncomingMessage, path: string): boolean {
  if (path === '/status.html') return true;
  const accept = String(req.headers.accept ?? '');
  return /\btext\/html\b/i.test(accept) && !/^application\/json/i.test(accept);
}

export function sendStatus(req: IncomingMessage, res: ServerResponse, path: string, report: StatusReport): void {
  res.setHeader('cache-control', 'no-store');
  if (!wantsHtml(req, path)) return sendJson(res, 200, report);
  const refresh = Number(new URL(req.url ?? '/', 'http://status.local').searchParams.get('refresh'));
  const refreshMs = Number.isFinite(refresh) && refresh > 0 ? Math.min(60_000, Math.max(500, refresh)) : DEFAULT_REFRESH_MS;
  const html = statusPage(report, refreshMs);
  // The page's own inline style and script only: nothing loads from elsewhere.
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}
