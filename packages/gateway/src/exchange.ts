/** What a route handler gets for one HTTP exchange. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallOptions, Clock, Pipeline } from '@switchyard/core';
import type { Dialect } from './dialect.js';
import type { Heartbeats } from './heartbeats.js';
import type { Logger } from './logger.js';
import type { ServerOptions } from './server-options.js';
import type { ErrorReplyOptions } from './upstream-message.js';

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The URL's query. */
  query: URLSearchParams;
  pipeline: Pipeline;
  /** Its `signal` aborts when the client disconnects before its answer is complete. */
  call: CallOptions;
  clock: Clock;
  logger: Logger;
  /** The heartbeats of streams waiting for their first part (one timer for all of them). */
  heartbeats: Heartbeats;
  /** How error replies may name the upstream (`server.exposeUpstream`). */
  errorOptions: ErrorReplyOptions;
  /** The client API this request came in: errors and answers are written in it. */
  dialect: Dialect;
  /** When the gateway started (unix seconds): the `created` of the model list. */
  startedAt: number;
  /** A POST's body as the client sent it (the route gets it parsed). */
  bodyText?: string;
  /** `bodyText` as the client's bytes, when they are exactly its UTF-8 (read-body.ts). */
  bodyBytes?: Uint8Array;
  /** The gateway's resolved `server` settings. */
  server: Readonly<ServerOptions>;
}
