/**
 * createGateway(): an OpenAI-compatible HTTP server on node:http over a Switchyard pipeline.
 * The hot path stays on node:http and the pipeline's undici transport (no fetch / web streams).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRequestLimits, SwitchyardError, systemClock, type Clock, type FromConfigOptions, type LoadedConfig, type Pipeline } from '@switchyard/core';
import { chatCompletions } from './chat-completions.js';
import { embeddings } from './embeddings.js';
import type { Exchange } from './exchange.js';
import { createKeyCheck, type KeyCheck } from './gateway-keys.js';
import { sendError, sendJson } from './http-reply.js';
import { silentLogger, type Logger } from './logger.js';
import { GatewayMetrics } from './metrics.js';
import { modelEntry, modelList, modelsWithoutCandidates } from './models.js';
import { errorReply, replyForError, SHUTTING_DOWN_CODE, type ErrorReply } from './openai-errors.js';
import { sseErrorEvent } from './openai-wire.js';
import { PipelineSlot, type Lease } from './pipeline-slot.js';
import { pipelineFromConfig } from './pipeline-from-config.js';
import { BodyError, readJsonBody } from './read-body.js';
import { BodyBudget } from './body-budget.js';
import { createBrowserGuard } from './browser-guard.js';
import { answerClientError } from './client-errors.js';
import { requestIdOf, traceparentOf } from './request-meta.js';
import { assertSafeBinding, resolveServerOptions, type ServerOptions } from './server-options.js';

export interface GatewayOptions {
  /** The pipeline to serve. The gateway owns it from now on and closes it on close() or reload(). */
  pipeline?: Pipeline;
  /** A loaded config: its `server` section configures the gateway; its pipeline is built at listen(). */
  config?: LoadedConfig;
  /** Overrides of the config's `server` section. */
  server?: Partial<ServerOptions>;
  /** Passed to the config's pipeline builder (importer, extra plugins, transport). */
  pipelineOptions?: FromConfigOptions;
  logger?: Logger;
  /** Clock for heartbeats and the shutdown grace period. */
  clock?: Clock;
}

export interface GatewayAddress {
  host: string;
  port: number;
  /** `http://host:port/v1`: the base URL an OpenAI SDK needs. */
  url: string;
}

export interface ReloadOptions {
  /** New gateway keys (key rotation without a restart). */
  apiKeys?: string[];
  /** Close the replaced pipeline once its requests finished (default true). */
  closePrevious?: boolean;
}

export interface Gateway {
  listen(): Promise<GatewayAddress>;
  /** Stops accepting, lets requests in flight finish (up to shutdownGraceMs), then closes the pipelines. */
  close(): Promise<void>;
  /** Swaps the pipeline atomically; requests in flight finish on the old one. */
  reload(pipeline: Pipeline, options?: ReloadOptions): void;
  readonly address: GatewayAddress | undefined;
  readonly pipeline: Pipeline | undefined;
  readonly options: Readonly<ServerOptions>;
  readonly inFlight: number;
  readonly metrics: GatewayMetrics;
}

type Route = (x: Exchange, body: unknown) => Promise<void>;

const POST_ROUTES: Record<string, Route> = {
  '/v1/chat/completions': chatCompletions,
  '/v1/embeddings': embeddings,
};

const shuttingDown = (): ErrorReply => errorReply(503, 'the gateway is shutting down; retry on another instance', 'server_error', 'shutting_down', null, { 'retry-after': '1' });

export function createGateway(options: GatewayOptions): Gateway {
  if (!options.pipeline && !options.config) throw new SwitchyardError('config', 'createGateway needs a pipeline or a config', { code: 'SWITCHYARD_ERR_CONFIG' });
  const server = resolveServerOptions(options.config?.server, options.server);
  assertSafeBinding(server);
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const metrics = new GatewayMetrics();
  const startedAt = Math.floor(Date.now() / 1000);
  let keyCheck: KeyCheck = createKeyCheck(server.apiKeys);
  let browserGuard = createBrowserGuard({ keyless: server.apiKeys.length === 0, hosts: server.hosts, cors: server.cors });
  const bodyBudget = new BodyBudget(server.maxBodyBytesInFlight);
  let slot: PipelineSlot | undefined;
  let address: GatewayAddress | undefined;
  let inFlight = 0;
  let draining = false;
  let closing: Promise<void> | undefined;
  let onIdle: (() => void) | undefined;
  const active = new Set<AbortController>();

  const newSlot = (pipeline: Pipeline) =>
    new PipelineSlot(pipeline, (p) => metrics.observe(p), (error) => logger.error('closing a pipeline failed', { error: (error as Error).message }));
  if (options.pipeline) slot = newSlot(options.pipeline);
  metrics.gauge('switchyard_gateway_in_flight', () => inFlight);

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      logger.error('unexpected gateway failure', { error: (error as Error)?.message });
      if (res.headersSent) res.destroy();
      else sendError(res, errorReply(500, 'internal gateway error', 'server_error', 'internal_error'));
    });
  });

  httpServer.on('clientError', answerClientError);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = requestIdOf(req);
    res.setHeader('x-request-id', requestId);
    if (draining) res.setHeader('connection', 'close');
    const path = (req.url ?? '/').split('?', 1)[0];
    const method = req.method ?? 'GET';
    if (path === '/health') return sendJson(res, 200, { status: draining ? 'draining' : 'ok' });
    if (path === '/ready') return ready(res);
    const verdict = browserGuard(req, res);
    if (verdict && 'reply' in verdict) return sendError(res, verdict.reply);
    if (verdict) {
      res.writeHead(204, verdict.preflight);
      return void res.end();
    }
    if (!keyCheck(req.headers.authorization)) {
      metrics.inc('switchyard_gateway_requests_total', { route: 'auth', status: 401 });
      return sendError(res, errorReply(401, 'Incorrect or missing gateway API key. Send "Authorization: Bearer <gateway key>".', 'invalid_request_error', 'invalid_api_key'));
    }
    if (method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      return void res.end(metrics.render());
    }
    if (method === 'GET' && path === '/v1/models') return sendJson(res, 200, modelList(slot!.pipeline, startedAt));
    if (method === 'GET' && path.startsWith('/v1/models/')) {
      let id: string;
      try {
        id = decodeURIComponent(path.slice('/v1/models/'.length));
      } catch {
        return sendError(res, errorReply(400, 'the model id in the URL is not valid percent-encoding', 'invalid_request_error', 'invalid_url', 'model'));
      }
      if (slot!.pipeline.modelNames().includes(id)) return sendJson(res, 200, modelEntry(id, startedAt));
      return sendError(res, errorReply(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model_not_found', 'model'));
    }
    const route = POST_ROUTES[path];
    if (!route) return sendError(res, errorReply(404, `Invalid URL (${method} ${path})`, 'invalid_request_error', 'unknown_url'));
    if (method !== 'POST') return sendError(res, errorReply(405, `${path} accepts POST only`, 'invalid_request_error', 'method_not_allowed'), { allow: 'POST' });
    if (draining) return sendError(res, shuttingDown());
    // The body is read before the request takes a slot: a slow body holds bytes of the read
    // budget for at most bodyTimeoutMs, never one of the maxInFlight slots.
    let body: unknown;
    try {
      body = await readJsonBody(req, server.maxBodyBytes, { budget: bodyBudget, timeoutMs: server.bodyTimeoutMs, clock });
      checkRequestLimits(body, server.limits);
    } catch (error) {
      if (error instanceof BodyError && error.closeConnection) closeAfterReply(req, res);
      sendError(res, error instanceof BodyError ? error.reply : replyForError(error));
      metrics.inc('switchyard_gateway_requests_total', { route: path, status: res.statusCode });
      return;
    }
    if (draining) return sendError(res, shuttingDown());
    if (inFlight >= server.maxInFlight) {
      metrics.inc('switchyard_gateway_shed_total');
      return sendError(res, errorReply(503, `the gateway is at its limit of ${server.maxInFlight} requests in flight; retry shortly`, 'server_error', 'overloaded', null, { 'retry-after': '1' }));
    }
    await serve(route, path, body, req, res, requestId);
  }

  async function serve(route: Route, path: string, body: unknown, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    inFlight++;
    const lease: Lease = slot!.acquire();
    const controller = new AbortController();
    active.add(controller);
    // A client that goes away aborts the upstream attempt (the pipeline forwards the signal).
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new SwitchyardError('cancelled', 'the client disconnected'));
    });
    try {
      const exchange: Exchange = {
        req,
        res,
        pipeline: lease.pipeline,
        signal: controller.signal,
        call: { signal: controller.signal, requestId, traceparent: traceparentOf(req), deadlineMs: server.requestTimeoutMs },
        clock,
        logger,
        heartbeatMs: server.heartbeatMs,
      };
      await route(exchange, body);
    } catch (error) {
      if (res.headersSent) {
        // Only SSE answers send headers early: end them with an error event, never a clean end.
        if (!res.writableEnded) res.end(sseErrorEvent(replyForError(error).body));
      } else if (!controller.signal.aborted) sendError(res, replyForError(error));
    } finally {
      inFlight--;
      active.delete(controller);
      lease.release();
      metrics.inc('switchyard_gateway_requests_total', { route: path, status: res.statusCode });
      if (res.statusCode >= 500) logger.warn('request failed', { requestId, route: path, status: res.statusCode });
      if (inFlight === 0) onIdle?.();
    }
  }

  /** The rest of this body is not worth reading: answer, then close the connection. */
  function closeAfterReply(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('connection', 'close');
    res.once('finish', () => {
      req.socket.end();
      // A client that keeps sending never gets to hold the socket.
      setTimeout(() => req.socket.destroy(), 1000).unref();
    });
  }

  function ready(res: ServerResponse): void {
    if (draining || !slot) return sendJson(res, 503, { status: draining ? 'draining' : 'starting' });
    const missing = modelsWithoutCandidates(slot.pipeline);
    if (missing.length > 0) return sendJson(res, 503, { status: 'not_ready', modelsWithoutCandidates: missing });
    sendJson(res, 200, { status: 'ready', models: slot.pipeline.modelNames().length });
  }

  async function waitForIdle(graceMs: number): Promise<void> {
    if (inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = clock.setTimeout(resolve, graceMs);
      onIdle = () => {
        clock.clearTimeout(timer);
        resolve();
      };
    });
    onIdle = undefined;
  }

  const gateway: Gateway = {
    get address() {
      return address;
    },
    get pipeline() {
      return slot?.pipeline;
    },
    get inFlight() {
      return inFlight;
    },
    options: server,
    metrics,
    async listen() {
      if (address) return address;
      if (!slot) slot = newSlot(await pipelineFromConfig(options.config!, options.pipelineOptions));
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(server.port, server.host, () => {
          httpServer.off('error', reject);
          resolve();
        });
      });
      const bound = httpServer.address() as AddressInfo;
      const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
      address = { host: bound.address, port: bound.port, url: `http://${host}:${bound.port}/v1` };
      logger.info('gateway listening', { url: address.url, models: slot.pipeline.modelNames(), auth: server.apiKeys.length > 0 });
      return address;
    },
    reload(pipeline, reloadOptions = {}) {
      if (reloadOptions.apiKeys) {
        const apiKeys = reloadOptions.apiKeys.filter((k) => k.trim().length > 0);
        assertSafeBinding({ host: server.host, apiKeys });
        keyCheck = createKeyCheck(apiKeys);
        browserGuard = createBrowserGuard({ keyless: apiKeys.length === 0, hosts: server.hosts, cors: server.cors });
      }
      if (!slot) slot = newSlot(pipeline);
      else slot.swap(pipeline, reloadOptions.closePrevious ?? true);
      metrics.inc('switchyard_gateway_reloads_total', { result: 'ok' });
      pipeline.events.emit('config:reload', { ok: true });
      logger.info('pipeline reloaded', { models: pipeline.modelNames(), inFlight });
    },
    close() {
      closing ??= (async () => {
        draining = true;
        const closed = address ? new Promise<void>((resolve) => httpServer.close(() => resolve())) : Promise.resolve();
        httpServer.closeIdleConnections();
        await waitForIdle(server.shutdownGraceMs);
        if (inFlight > 0) {
          logger.warn('shutdown grace period over; aborting requests in flight', { inFlight });
          for (const controller of active) controller.abort(new SwitchyardError('cancelled', 'the gateway is shutting down; retry on another instance', { code: SHUTTING_DOWN_CODE, status: 503 }));
          await waitForIdle(1_000);
        }
        httpServer.closeAllConnections();
        await closed;
        await slot?.closeAll();
        logger.info('gateway closed');
      })();
      return closing;
    },
  };
  return gateway;
}
