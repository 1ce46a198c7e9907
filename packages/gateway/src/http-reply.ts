/** Small helpers for writing answers on node:http responses. */
import type { ServerResponse } from 'node:http';
import type { ErrorReply } from './openai-errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | number> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, reply: ErrorReply, extra: Record<string, string | number> = {}): void {
  if (res.headersSent || res.destroyed) return;
  sendJson(res, reply.status, reply.body, { ...reply.headers, ...extra });
}

export interface AnswerInfo {
  endpoint?: string;
  attempts?: number;
  degraded?: string;
}

/** `x-switchyard-*` headers naming who answered, how many attempts it took and any degrade level. */
export function infoHeaders(info: AnswerInfo | undefined): Record<string, string> {
  if (!info) return {};
  const headers: Record<string, string> = {};
  if (info.endpoint) headers['x-switchyard-endpoint'] = info.endpoint;
  if (info.attempts !== undefined) headers['x-switchyard-attempts'] = String(info.attempts);
  if (info.degraded) headers['x-switchyard-degraded'] = info.degraded;
  return headers;
}

/** Resolves when the socket can take more data or the client is gone. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
