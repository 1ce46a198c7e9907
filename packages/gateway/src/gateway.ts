/**
 * createGateway(): an OpenAI-compatible HTTP server on node:http over a Switchyard pipeline.
 * The hot path stays on node:http and the pipeline's undici transport (no fetch / web streams).
 */
import { SERVICE } from '@switchyard/contracts';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getService, isSwitchyardError, SwitchyardError, systemClock, toSwitchyardError, type CallerIdentity, type Clock, type Pipeline, type StateStore, type TimerHandle } from '@switchyard/core';
import { AbortLink, checkRequestLimits } from '@switchyard/core/internal';
import { type FromConfigOptions, type LoadedConfig } from '@switchyard/core/config';
import { writesSettled } from '@switchyard/provider-openai/dialect';
import type { Exchange } from './exchange.js';
import { ADMIN_PATHS, CallerGate } from './caller-gate.js';
import { adminRoute } from './admin-route.js';
import { bearerCredential, renderError, type Dialect } from './dialect.js';
import { DialectRoutes, type RouteMatch } from './dialect-routes.js';
import { runRoute } from './dialect-runner.js';
import { DEFAULT_DIALECTS, openaiChatDialect } from './default-dialects.js';
import { GatewayResponse } from './gateway-response.js';
import { sendError, sendJson } from './http-reply.js';
import type { Registry } from 'prom-client';
import { AccessLog, CLIENT_CLOSED_STATUS } from './access-log.js';
import { logPipelineEvents } from './event-log.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { flatLineWriterOf, silentLogger, type Logger } from './logger.js';
import { openGatewayStore, type GatewayStore } from './gateway-store.js';
import { gatewayOwnText, gatewaySecrets, maskerOf, maskingLogger, SecretMasker } from './secret-masking.js';
import { StatusBoard, type StatusReport } from './status-board.js';
import { errorCodeOf, noteErrorCode, requestedModel } from './sent-error.js';
import { basicPassword, sendStatus, STATUS_PATHS } from './status-route.js';
import { withSpendForecast } from './status-forecast.js';
import { modelsWithoutCandidates } from './models.js';
import { errorReply, replyForError, replyWithError, SHUTTING_DOWN_CODE, type ErrorReply } from './openai-errors.js';
import { PipelineSlot, type Lease } from './pipeline-slot.js';
import { pipelineFromConfig } from './pipeline-from-config.js';
import { BodyError, readJsonBody, type JsonBody } from './read-body.js';
import { BodyBudget } from './body-budget.js';
import { BodyDeadlines } from './body-deadlines.js';
import { Heartbeats } from './heartbeats.js';
import { createBrowserGuard } from './browser-guard.js';
import { answerClientError } from './client-errors.js';
import { idempotencyKeyOf, isMadeRequestId, requestIdOf, sessionIdOf, traceparentOf } from './request-meta.js';
import { usageRoute } from './usage-route.js';
import { assertKeysServed, assertSafeBinding, resolveServerOptions, type ServerOptions } from './server-options.js';
import { withStoreCapsHeld } from './store-caps.js';

export interface GatewayOptions {
  /** The pipeline to serve. The gateway owns it from now on and closes it on close() or reload(). */
  pipeline?: Pipeline;
  /** A loaded config: its `server` section configures the gateway; its pipeline is built at listen(). */
  config?: LoadedConfig;
  /** Overrides of the config's `server` section. */
  server?: Partial<ServerOptions>;
  /** Passed to the config's pipeline builder (importer, extra plugins, transport). */
  pipelineOptions?: FromConfigOptions;
  /** A pino-compatible logger (`info(fields, message)`); silent by default. Every line is masked of keys first. */
  logger?: Logger;
  /** Extra values to mask in logs and status answers (the CLI passes the config's `${VAR}` values). */
  secrets?: () => readonly string[];
  /** Where the gateway's own metrics are registered (default: a registry of its own). */
  metricsRegistry?: Registry;
  /** Clock for heartbeats and the shutdown grace period. */
  clock?: Clock;
  /**
   * The client APIs served (default `DEFAULT_DIALECTS`: OpenAI Chat Completions, Anthropic
   * Messages, OpenAI Responses). A dialect is a `DialectV1` (`@switchyard/core/dialect`): the
   * Gemini API is `geminiDialect` from `@switchyard/provider-gemini/dialect`; a third-party one is
   * one more entry (docs/dialects.md).
   */
  dialects?: readonly Dialect[];
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
  /** New admin keys (`server.adminKeys`). */
  adminKeys?: string[];
  /** Close the replaced pipeline once its requests finished (default true). */
  closePrevious?: boolean;
}

export interface Gateway {
  listen(): Promise<GatewayAddress>;
  /** Stops accepting, lets requests in flight finish (up to shutdownGraceMs), then closes the pipelines. */
  close(): Promise<void>;
  /** Swaps the pipeline atomically; requests in flight finish on the old one. */
  reload(pipeline: Pipeline, options?: ReloadOptions): void;
  /** A reload its caller could not carry out (a config that does not load): counted in /metrics, announced as `config:reload`. */
  reloadRejected(error: unknown): void;
  readonly address: GatewayAddress | undefined;
  readonly pipeline: Pipeline | undefined;
  /**
   * The StateStore the config's pipelines share (set at listen() for a config). Build the next
   * pipeline with `{ store: gateway.store }` so a reload keeps breakers, budgets, health, cache.
   */
  readonly store: StateStore | undefined;
  readonly options: Readonly<ServerOptions>;
  readonly inFlight: number;
  readonly metrics: GatewayMetrics;
  /** What GET /status answers. */
  status(): StatusReport;
}

/** A matched route's path pattern when it has parameters (a bounded metrics label); literal paths are labelled by themselves. */
const patternOf = (matched: RouteMatch | undefined) => (matched?.route && matched.route.path.includes('{') ? matched.route.path : undefined);

/** The access line's field a request id the gateway made goes in (request-meta.ts: `isMadeRequestId`). */
const MADE_REQUEST_ID: readonly string[] = ['requestId'];

const shuttingDown = (): ErrorReply => errorReply(503, 'the gateway is shutting down; retry on another instance', 'server_error', 'shutting_down', null, { 'retry-after': '1' });

export function createGateway(options: GatewayOptions): Gateway {
  if (!options.pipeline && !options.config) throw new SwitchyardError('config', 'createGateway needs a pipeline or a config', { code: 'SWITCHYARD_ERR_CONFIG' });
  const server = resolveServerOptions(options.config?.server, options.server);
  assertSafeBinding(server);
  const clock = options.clock ?? systemClock;
  const startedAt = Math.floor(Date.now() / 1000);
  let apiKeys = server.apiKeys;
  let adminKeys = server.adminKeys;
  let gate = new CallerGate(apiKeys, adminKeys);
  // Admin keys are masked like gateway keys (one frozen list, rebuilt when the keys change).
  let ownKeys: readonly string[] = Object.freeze([...apiKeys, ...adminKeys]);
  const ownSecrets = gatewaySecrets(() => [ownKeys, slot?.pipeline, options.secrets?.()]);
  const ownText = gatewayOwnText(() => slot?.pipeline ?? options.pipeline);
  const masker = new SecretMasker(ownSecrets, ownText);
  // A logger that masks every call itself learns this gateway's secrets; any other is wrapped.
  const loggerMasker = options.logger && maskerOf(options.logger);
  const forgetSecrets = loggerMasker ? loggerMasker.addSource(ownSecrets, ownText) : undefined;
  const logger = options.logger ? (loggerMasker ? options.logger : maskingLogger(options.logger, masker)) : silentLogger;
  // A logger that masks itself may write flat lines (the access line) without its generic serializer.
  const flatLine = options.logger && loggerMasker ? flatLineWriterOf(options.logger) : undefined;
  const metrics = new GatewayMetrics(() => inFlight, options.metricsRegistry);
  const accessLog = new AccessLog();
  const board = new StatusBoard(() => clock.now(), (text) => masker.text(text));
  const tenantsOf = (pipeline: Pipeline | undefined) => (pipeline ? getService(pipeline, SERVICE.tenants) : undefined);
  const guardFor = (pipeline: Pipeline | undefined) => createBrowserGuard({ keyless: gate.open(tenantsOf(pipeline)), hosts: server.hosts, cors: server.cors });
  let browserGuard = guardFor(options.pipeline);
  const bodyBudget = new BodyBudget(server.maxBodyBytesInFlight);
  const bodyDeadlines = new BodyDeadlines(clock, server.bodyTimeoutMs);
  const heartbeats = new Heartbeats(clock, server.heartbeatMs);
  const errorOptions = { exposeUpstream: server.exposeUpstream };
  const routes = new DialectRoutes(options.dialects ?? DEFAULT_DIALECTS);
  let slot: PipelineSlot | undefined;
  let home: GatewayStore | undefined;
  let address: GatewayAddress | undefined;
  let inFlight = 0;
  let draining = false;
  let closing: Promise<void> | undefined;
  let onIdle: (() => void) | undefined;
  const active = new Set<AbortLink>();

  const observe = (p: Pipeline) => {
    // Without a logger there are no lines to build: only /status listens.
    const boardOptions = { callers: tenantsOf(p) !== undefined };
    const detach = options.logger ? [logPipelineEvents(p, logger), accessLog.observe(p), board.observe(p, boardOptions)] : [board.observe(p, boardOptions)];
    return () => detach.forEach((d) => d());
  };
  const newSlot = (pipeline: Pipeline) => new PipelineSlot(pipeline, observe, (error) => logger.error({ error: (error as Error).message }, 'closing a pipeline failed'));
  /** `server` as requests see it: stored Responses' caps held within the heap when they live in this process (store-caps.ts). */
  let served: Readonly<ServerOptions> = server;
  const holdStoreCaps = (pipeline: Pipeline) => {
    served = withStoreCapsHeld(server, pipeline.store, (fields, message) => logger.warn(fields, message));
  };
  if (options.pipeline) {
    assertKeysServed(server, tenantsOf(options.pipeline) !== undefined);
    slot = newSlot(options.pipeline);
    holdStoreCaps(options.pipeline);
  }

  const httpServer = http.createServer({ ServerResponse: GatewayResponse }, (req, res) => {
    handle(req, res).catch((error) => {
      logger.error({ error: (error as Error)?.message }, 'unexpected gateway failure');
      if (res.headersSent) res.destroy();
      else replyWithError({ res, dialect: openaiChatDialect, errorOptions }, error);
    });
  });

  httpServer.on('clientError', answerClientError);

  async function handle(req: IncomingMessage, res: GatewayResponse): Promise<void> {
    const requestId = requestIdOf(req);
    res.requestId = requestId;
    if (draining) res.setHeader('connection', 'close');
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? '' : url.slice(queryAt + 1));
    const method = req.method ?? 'GET';
    if (path === '/health') return sendJson(res, 200, { status: draining ? 'draining' : 'ok' });
    if (path === '/ready') return ready(res);
    const verdict = browserGuard(req, res);
    if (verdict && 'reply' in verdict) return sendError(res, verdict.reply);
    if (verdict) {
      res.writeHead(204, verdict.preflight);
      return void res.end();
    }
    const statusRoute = method === 'GET' && STATUS_PATHS.has(path);
    const matched = statusRoute ? undefined : routes.match(method, path, req.headers, query);
    // Errors go out in the shape of the client's API, as far as the path tells it.
    const dialect = matched?.dialect ?? routes.dialectNear(path) ?? openaiChatDialect;
    const fail = (reply: ErrorReply, extra?: Record<string, string>) => {
      noteErrorCode(res, reply.body.error.code);
      sendError(res, renderError(dialect, reply), extra);
    };
    const presented = statusRoute ? basicPassword(req.headers.authorization) ?? bearerCredential(req.headers, query) : (dialect.credential ?? bearerCredential)(req.headers, query);
    if (ADMIN_PATHS.test(path)) {
      if (!gate.admitAdmin(presented)) return refuse(requestId, path, fail, false);
      return adminRoute(slot!.pipeline, req, res, path, errorOptions);
    }
    const operatorRoute = statusRoute || path === '/metrics' || path === '/switchyard/usage';
    const admitted = gate.admit(presented, tenantsOf(slot?.pipeline), operatorRoute);
    const admission = admitted instanceof Promise ? await admitted : admitted;
    if (admission.kind === 'refused') return refuse(requestId, path, fail, statusRoute, admission.error, matched?.params.model);
    const caller = admission.kind === 'caller' ? admission.caller : undefined;
    if (statusRoute) return sendStatus(req, res, path, await withSpendForecast(status(), slot?.pipeline));
    if (method === 'GET' && path === '/metrics') {
      const { contentType, body } = await metrics.render(slot?.pipeline);
      res.writeHead(200, { 'content-type': contentType });
      return void res.end(body);
    }
    if (method === 'GET' && path === '/switchyard/usage') return usageRoute(slot!.pipeline, req.url ?? path, res);
    if (!matched) return fail(errorReply(404, `Invalid URL (${method} ${path})`, 'invalid_request_error', 'unknown_url'));
    if (!matched.route) return fail(errorReply(405, `${path} accepts ${matched.allowed.join(', ')} only`, 'invalid_request_error', 'method_not_allowed'), { allow: matched.allowed.join(', ') });
    // Reads (GET /v1/models, a stored response) answer at once: no body, no slot of maxInFlight.
    if (method !== 'POST') return runRoute(exchangeFor(req, res, requestId, query, slot!.pipeline, new AbortLink(), dialect, caller), matched, undefined);
    if (draining) return fail(shuttingDown());
    // The body is read before the request takes a slot: a slow body holds bytes of the read
    // budget for at most bodyTimeoutMs, never one of the maxInFlight slots.
    let body: JsonBody;
    try {
      body = await readJsonBody(req, server.maxBodyBytes, { budget: bodyBudget, deadlines: bodyDeadlines });
      checkRequestLimits(body.value, server.limits);
    } catch (error) {
      if (error instanceof BodyError && error.closeConnection) closeAfterReply(req, res);
      const reply = error instanceof BodyError ? error.reply : replyForError(error, errorOptions);
      fail(reply);
      metrics.request(path, res.statusCode, patternOf(matched));
      // A body refused before routing gets its access line too, with the code it was refused with.
      logger.info({ event: 'access', requestId, route: path, outcome: 'error', status: reply.status, errorCode: isSwitchyardError(error) ? error.code : reply.body.error.code, gatewayKey: caller?.keyId, team: caller?.team }, 'request');
      return;
    }
    if (draining) return fail(shuttingDown());
    if (inFlight >= server.maxInFlight) {
      metrics.shedOne();
      logger.warn({ event: 'access', requestId, route: path, outcome: 'error', status: 503, errorCode: 'overloaded' }, 'request');
      slot?.pipeline.events.emit('request:shed', { inFlight, limit: server.maxInFlight });
      return fail(errorReply(503, `the gateway is at its limit of ${server.maxInFlight} requests in flight; retry shortly`, 'server_error', 'overloaded', null, { 'retry-after': '1' }));
    }
    await serve(matched, path, body, req, res, requestId, query, caller);
  }

  /** 401 for a missing, wrong, unknown or revoked key alike; an expired key's refusal names the expiry. */
  function refuse(requestId: string, path: string, fail: (reply: ErrorReply, extra?: Record<string, string>) => void, challenge: boolean, error?: SwitchyardError, model?: string): void {
    const reply = error ? replyForError(error, errorOptions) : errorReply(401, 'Incorrect or missing gateway API key. Send "Authorization: Bearer <gateway key>" (or "x-api-key: <gateway key>" on the Anthropic API).', 'invalid_request_error', 'invalid_api_key');
    // Counted under the route asked for, and logged like any other client error (info, not warn).
    metrics.request(path, reply.status);
    logger.info({ event: 'access', requestId, route: path, model, outcome: 'error', status: reply.status, errorCode: reply.body.error.code }, 'request');
    // Browsers ask for the key (as a Basic password) and resend it on the page's refreshes.
    fail(reply, challenge ? { 'www-authenticate': 'Basic realm="switchyard", charset="UTF-8"' } : {});
  }

  function exchangeFor(req: IncomingMessage, res: ServerResponse, requestId: string, query: URLSearchParams, pipeline: Pipeline, abort: AbortLink, dialect: Dialect, caller: CallerIdentity | undefined, body?: JsonBody): Exchange {
    return {
      req,
      res,
      query,
      pipeline,
      call: { signal: abort, requestId, traceparent: traceparentOf(req), deadlineMs: server.requestTimeoutMs, idempotencyKey: idempotencyKeyOf(req), caller, sessionId: sessionIdOf(req), limits: server.limits },
      clock,
      logger,
      heartbeats,
      errorOptions,
      dialect,
      startedAt,
      server: served,
      bodyText: body?.text,
      bodyBytes: body?.bytes,
    };
  }

  async function serve(matched: RouteMatch, path: string, body: JsonBody, req: IncomingMessage, res: ServerResponse, requestId: string, query: URLSearchParams, caller: CallerIdentity | undefined): Promise<void> {
    const { dialect } = matched;
    inFlight++;
    const begunAt = clock.now();
    if (options.logger) accessLog.begin(requestId);
    const lease: Lease = slot!.acquire();
    const abort = new AbortLink();
    active.add(abort);
    let clientGone = false;
    // A client that goes away aborts the upstream attempt (the pipeline forwards the signal).
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      abort.abort(new SwitchyardError('cancelled', 'the client disconnected'));
    });
    try {
      await runRoute(exchangeFor(req, res, requestId, query, lease.pipeline, abort, dialect, caller, body), matched, body.value);
    } catch (error) {
      replyWithError({ res, dialect, errorOptions }, error);
    } finally {
      inFlight--;
      active.delete(abort);
      lease.release();
      // A stream the client left is not a 200: it is counted and logged as 499 / cancelled.
      const cancelled = clientGone || (res.destroyed && !res.writableFinished);
      metrics.request(path, cancelled ? CLIENT_CLOSED_STATUS : res.statusCode, patternOf(matched));
      if (options.logger) {
        const line = accessLog.finish(requestId, { route: path, status: res.statusCode, cancelled, latencyMs: clock.now() - begunAt, caller, model: requestedModel(body.value, matched.params), errorCode: errorCodeOf(res) });
        const level = line.outcome === 'error' && res.statusCode >= 500 ? 'warn' : 'info';
        if (flatLine) flatLine(level, line, 'request', isMadeRequestId(req, requestId) ? MADE_REQUEST_ID : undefined);
        else logger[level](line, 'request');
      }
      if (inFlight === 0) onIdle?.();
    }
  }

  function status(): StatusReport {
    const pipeline = slot?.pipeline;
    return masker.value(board.report(pipeline, pipeline ? () => pipeline.clock.now() : undefined)) as StatusReport;
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
    get store() {
      const given = options.pipelineOptions?.store;
      return (given && 'owned' in given ? given.use : given) ?? home?.store;
    },
    get inFlight() {
      return inFlight;
    },
    options: server,
    metrics,
    status,
    async listen() {
      if (address) return address;
      if (!slot) {
        const config = options.config!;
        if (!options.pipelineOptions?.store) {
          home = await openGatewayStore(config, { importer: options.pipelineOptions?.importer, clock: options.pipelineOptions?.clock, onWarning: (m, f) => logger.warn({ event: 'store', ...f }, m) });
          if (home.snapshotFile) logger.info({ event: 'store_snapshot_loaded', file: home.snapshotFile, entries: home.restored }, 'store snapshot loaded');
          if (home.records) logger.info({ event: 'records_opened', where: home.records.where, restored: home.records.restored }, 'durable records opened');
          // One line when a store's server stops answering, one when it is back (not one per request).
          home.store.watchAvailability?.((change) => {
            if (change.event === 'store:outage') logger.warn({ event: change.event, where: change.where, error: change.error?.message }, 'store unavailable; serving from this instance meanwhile');
            else logger.info({ event: change.event, where: change.where }, 'store answers again');
          });
        }
        try {
          const pipeline = await pipelineFromConfig(config, { ...options.pipelineOptions, store: gateway.store });
          try {
            assertKeysServed(server, tenantsOf(pipeline) !== undefined);
          } catch (error) {
            await pipeline.close();
            throw error;
          }
          slot = newSlot(pipeline);
          holdStoreCaps(pipeline);
          browserGuard = guardFor(pipeline);
        } catch (error) {
          await home?.close();
          home = undefined;
          throw error;
        }
      }
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
      logger.info({ event: 'listening', url: address.url, models: slot.pipeline.modelNames(), auth: !gate.open(tenantsOf(slot.pipeline)) }, 'gateway listening');
      return address;
    },
    reload(pipeline, reloadOptions = {}) {
      const nextKeys = reloadOptions.apiKeys || reloadOptions.adminKeys ? resolveServerOptions({ apiKeys: reloadOptions.apiKeys ?? apiKeys, adminKeys: reloadOptions.adminKeys ?? adminKeys }) : { apiKeys, adminKeys };
      assertSafeBinding({ host: server.host, apiKeys: nextKeys.apiKeys, adminKeys: nextKeys.adminKeys });
      assertKeysServed(nextKeys, tenantsOf(pipeline) !== undefined);
      if (nextKeys.apiKeys !== apiKeys || nextKeys.adminKeys !== adminKeys) {
        ({ apiKeys, adminKeys } = nextKeys);
        ownKeys = Object.freeze([...apiKeys, ...adminKeys]);
        gate = new CallerGate(apiKeys, adminKeys);
      }
      browserGuard = guardFor(pipeline);
      if (!slot) slot = newSlot(pipeline);
      else slot.swap(pipeline, reloadOptions.closePrevious ?? true);
      metrics.reloaded('ok');
      pipeline.events.emit('config:reload', { ok: true });
      logger.info({ event: 'reload', ok: true, models: pipeline.modelNames(), inFlight }, 'pipeline reloaded');
    },
    reloadRejected(error) {
      metrics.reloaded('failed');
      slot?.pipeline.events.emit('config:reload', { ok: false, error: toSwitchyardError(error) });
    },
    close() {
      closing ??= (async () => {
        draining = true;
        // The listener stays open through the drain: probes on new connections keep answering
        // (/health 200 "draining", /ready 503) and late requests get 503 shutting_down with
        // Retry-After, which a client can act on faster than on a refused connection.
        httpServer.closeIdleConnections();
        await waitForIdle(server.shutdownGraceMs);
        if (inFlight > 0) {
          logger.warn({ event: 'shutdown', inFlight }, 'shutdown grace period over; aborting requests in flight');
          for (const abort of active) abort.abort(new SwitchyardError('cancelled', 'the gateway is shutting down; retry on another instance', { code: SHUTTING_DOWN_CODE, status: 503 }));
          await waitForIdle(1_000);
        }
        const closed = address ? new Promise<void>((resolve) => httpServer.close(() => resolve())) : Promise.resolve();
        httpServer.closeAllConnections();
        await closed;
        // Answers stored after they went out (`store` left to its default) are written within a few ms: before the store closes.
        const storing = slot && writesSettled(slot.pipeline.store);
        const storingGraceMs = Math.min(server.shutdownGraceMs, STORED_ANSWERS_GRACE_MS);
        if (storing && !(await settledWithin(storing, storingGraceMs, clock))) {
          logger.warn({ event: 'shutdown', waitedMs: storingGraceMs }, 'answers stored after they went out were not written in time; closing the store without them');
        }
        await slot?.closeAll();
        try {
          await home?.close();
        } catch (error) {
          logger.error({ event: 'store_snapshot_failed', error: (error as Error).message }, 'writing the store snapshot failed');
        }
        logger.info({ event: 'closed' }, 'gateway closed');
        forgetSecrets?.();
      })();
      return closing;
    },
  };
  return gateway;
}

/** Longest a graceful stop waits for the store to take the answers queued to be stored (a store that takes longer is failing); never past `shutdownGraceMs`. */
const STORED_ANSWERS_GRACE_MS = 5_000;

/** True when `work` settled within `ms` on `clock` (the gateway's, as the drain's wait). */
async function settledWithin(work: Promise<unknown>, ms: number, clock: Clock): Promise<boolean> {
  let timer: TimerHandle | undefined;
  const late = new Promise<false>((resolve) => (timer = clock.setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}
