/** Small helpers for writing answers on node:http responses. */
import type { ServerResponse } from 'node:http';
import type { Clock } from '@switchyard/core';
import { droppedSummary } from '@switchyard/core/internal';
import type { DroppedPart } from '@switchyard/core/wire';
import type { WireError } from './dialect.js';

/** One write: the head and the body go out corked together (a string body joins the head). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | number> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** A body that is JSON text already (a vendor's answer on the same-format fast path). */
export function sendJsonText(res: ServerResponse, status: number, text: string, headers: Record<string, string | number> = {}): void {
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(text);
  res.writeHead(status, headers);
  res.end(text);
}

export function sendError(res: ServerResponse, reply: WireError, extra: Record<string, string | number> = {}): void {
  if (res.headersSent || res.destroyed) return;
  sendJson(res, reply.status, reply.body, { ...reply.headers, ...extra });
}

/**
 * Streaming writes, flushed once per upstream chunk: the parts decoded from one chunk reach the
 * writer within the same turn of the event loop, so they are joined and written together on
 * the next tick (one chunked frame, and the response head with the first one).
 */
export class StreamWriter {
  private pending = '';
  private scheduled = false;
  private readonly flushNow = () => {
    this.scheduled = false;
    if (this.pending === '' || this.res.writableEnded || this.res.destroyed) return;
    const text = this.pending;
    this.pending = '';
    this.res.write(text);
  };

  constructor(private readonly res: ServerResponse) {}

  write(text: string): void {
    this.pending += text;
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(this.flushNow);
  }

  /** True when the socket wants the writer to wait (see drained()). */
  get backedUp(): boolean {
    return this.res.writableNeedDrain;
  }

  end(text: string): void {
    const rest = this.pending + text;
    this.pending = '';
    this.res.end(rest);
  }
}

export interface AnswerInfo {
  endpoint?: string;
  attempts?: number;
  degraded?: string;
  fallback?: string;
  queued?: string;
  truncated?: { droppedMessages: number };
  dropped?: readonly DroppedPart[];
  cacheLost?: string;
}

/**
 * `x-switchyard-*` headers naming who answered, how many attempts it took, any degrade level,
 * whether a backup answered, whether the request was queued for replay, whether its prompt
 * was shortened, what the answering deployment did without (`x-switchyard-dropped`) and whether
 * a failover lost the conversation's prompt cache (`x-switchyard-cache: lost`). Every dialect sends these.
 * `headers`: the answer's other headers, which these are added to (and returned).
 */
export function infoHeaders(info: AnswerInfo | undefined, headers: Record<string, string> = {}): Record<string, string> {
  if (!info) return headers;
  if (info.endpoint) headers['x-switchyard-endpoint'] = info.endpoint;
  if (info.attempts !== undefined) headers['x-switchyard-attempts'] = String(info.attempts);
  if (info.degraded) headers['x-switchyard-degraded'] = info.degraded;
  if (info.fallback) headers['x-switchyard-fallback'] = 'true';
  if (info.queued) headers['x-switchyard-queued'] = info.queued;
  if (info.truncated) headers['x-switchyard-truncated'] = String(info.truncated.droppedMessages);
  // What the answering deployment was sent without (core's translation.ts): nothing is dropped silently.
  if (info.dropped && info.dropped.length > 0) headers['x-switchyard-dropped'] = droppedSummary(info.dropped);
  // The router's prompt-cache affinity moved the conversation: this turn paid to rebuild the cache.
  if (info.cacheLost) headers['x-switchyard-cache'] = 'lost';
  return headers;
}

/** Resolves when the socket can take more data or the client is gone. */
export function drained(res: ServerResponse, timeout?: { ms: number; clock: Clock }): Promise<void> {
  return new Promise((resolve) => {
    // A client that stops reading for `ms` is dropped: its answer would otherwise wait in memory.
    const timer = timeout ? timeout.clock.setTimeout(() => res.destroy(new Error(`the client read nothing for ${timeout.ms} ms (server.writeTimeoutMs)`)), timeout.ms) : undefined;
    const done = () => {
      if (timer !== undefined) timeout!.clock.clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
