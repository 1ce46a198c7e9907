/**
 * Ingress dialects: the client APIs the gateway speaks (OpenAI Chat Completions, Anthropic
 * Messages, OpenAI Responses). A dialect is the mirror image of a provider codec: it decodes
 * what its clients send into the pipeline's unified request, and encodes unified answers,
 * stream parts and errors back into its own wire format. The pipeline never learns which
 * dialect a request came in; the HTTP layer (gateway.ts) only finds the route, authenticates
 * and reads the body. Adding a dialect is adding a module and listing it in `dialects`.
 */
import type { IncomingMessage } from 'node:http';
import type { StreamInfo, StreamPart } from '@switchyard/core';
import type { Exchange } from './exchange.js';
import type { ErrorReply } from './openai-errors.js';

/** An error as a dialect writes it: its status, its body shape, its headers. */
export interface WireError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface DialectRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The path, or a prefix ending in `/` when an id follows (`/v1/responses/` serves `/v1/responses/{id}`). */
  readonly path: string;
  /** POST routes get the JSON body the gateway read and checked against its limits; `param` is the id after a prefix. */
  handle(x: Exchange, body: unknown, param?: string): Promise<void>;
}

export interface Dialect {
  /** The wire format (core's wire-formats.ts), e.g. `anthropic.messages`. */
  readonly id: string;
  readonly routes: readonly DialectRoute[];
  /**
   * The gateway key as this dialect's clients present it (the Anthropic SDKs send `x-api-key`).
   * Default: the bearer token of `Authorization`.
   */
  credential?(req: IncomingMessage): string | undefined;
  /**
   * A gateway error in this dialect's shape. Every error starts as the gateway's own reply
   * (OpenAI-shaped: status, type, code, param, message, headers); a dialect renders it as its
   * clients expect (Anthropic: `{type:"error",error:{type,message}}`, 529 for overloaded).
   * Default: as it is. `error` is what the reply was made from, when there is one.
   */
  renderError?(reply: ErrorReply, error?: unknown): WireError;
  /** What a stream that already sent its head ends with on failure: this dialect's SSE error event. */
  streamError(reply: ErrorReply): string;
}

/** Writes one stream's parts in a dialect's SSE format (one instance per stream). */
export interface StreamEncoder {
  /** SSE text for a part ('' when the part adds nothing by itself). */
  encode(part: StreamPart): string;
  /** The closing text of a stream that finished (a promise when something must happen before the client sees it). */
  end(): string | Promise<string>;
  /** The closing text of a stream that failed after its head, when it depends on what was sent (default: the dialect's `streamError`). */
  fail?(reply: ErrorReply): string;
}

export type StreamEncoderFactory = (info: StreamInfo) => StreamEncoder;

/** The bearer token of an `Authorization` header (`Bearer <key>`), if any. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1] : undefined;
}

/** The default credential: `Authorization: Bearer <key>`. */
export function bearerCredential(req: IncomingMessage): string | undefined {
  return bearerToken(req.headers.authorization);
}

export function renderError(dialect: Dialect, reply: ErrorReply, error?: unknown): WireError {
  return dialect.renderError ? dialect.renderError(reply, error) : reply;
}
