/**
 * A loopback vendor (127.0.0.1 only) that plays the same fault catalogue over real sockets, for
 * the faults msw cannot express: a TCP reset, a stall with the socket open, a body cut in the
 * middle of a chunk with no chunk terminator. The scenario can be switched while it runs (demos).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { seededRandom, sleep, systemClock, type Clock, type RandomSource } from '@switchyard/core';
import type { FaultName, FaultOptions } from './fault-catalogue.js';
import { createFaultModel, decideFirst, type FaultModel } from './fault-model.js';
import type { FaultPlan } from './fault-plan.js';
import { wireFor } from './wires.js';
import type { FaultRequest, Vendor } from './vendor-wire.js';

export interface FaultServerOptions {
  vendor: Vendor;
  /** Initial scenario (default `ok`). */
  scenario?: FaultName;
  options?: FaultOptions;
  clock?: Clock;
  random?: RandomSource;
  /** Default 0 (any free port). */
  port?: number;
}

export interface RecordedRequest {
  /** Arrival time on the server's clock. */
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** The scenario in force when it arrived. */
  scenario: FaultName;
  /** What the server did: a status code, `reset`, `hang`, or `not-found`. */
  outcome: number | 'reset' | 'hang' | 'not-found';
}

export interface FaultServer {
  readonly vendor: Vendor;
  /** Base URL to configure an endpoint with, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  readonly scenario: FaultName;
  /** The current scenario's fault model (its counters are the vendor's view). */
  readonly fault: FaultModel;
  readonly requests: readonly RecordedRequest[];
  /** Switches the scenario for the next requests; requests in flight keep theirs. */
  setScenario(name: FaultName, options?: FaultOptions): void;
  close(): Promise<void>;
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += chunk;
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes one chunk and lets the event loop turn, so a client in the same process reads each
 * chunk before the next step (a later reset would otherwise discard data it had not read yet).
 */
async function writeChunk(res: http.ServerResponse, data: string): Promise<void> {
  await new Promise<void>((resolve) => res.write(data, () => resolve()));
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Declares the whole chunk, sends half of it, and drops the connection: no chunk terminator. */
function cutMidChunk(socket: Socket, data: string): void {
  const bytes = Buffer.from(data);
  socket.write(`${bytes.length.toString(16)}\r\n`);
  socket.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
  socket.destroy();
}

async function play(plan: FaultPlan, req: http.IncomingMessage, res: http.ServerResponse, clock: Clock, signal: AbortSignal): Promise<void> {
  if (plan.kind === 'hang') return;
  await sleep(clock, plan.delayMs, signal);
  if (plan.kind === 'reset') {
    req.socket.resetAndDestroy();
    return;
  }
  const { status, headers, chunks, end } = plan;
  if (end === 'close' && chunks.length === 1) {
    const body = Buffer.from(chunks[0]!.data);
    if (chunks[0]!.delayMs === 0) {
      res.writeHead(status, { ...headers, 'content-length': String(body.length) });
      res.end(body);
      return;
    }
  }
  res.writeHead(status, headers);
  res.flushHeaders();
  for (let i = 0; i < chunks.length; i++) {
    await sleep(clock, chunks[i]!.delayMs, signal);
    if (end === 'cut' && i === chunks.length - 1) return cutMidChunk(res.socket!, chunks[i]!.data);
    await writeChunk(res, chunks[i]!.data);
  }
  if (end === 'close') res.end();
  else if (end === 'cut') res.socket?.destroy();
  // 'stall': keep the socket open and silent until the client or close() ends it.
}

/** The healthy fallback keeps the scenario's text and pacing, never its `times` or schedule. */
function healthyOptions({ times: _times, when: _when, ...rest }: FaultOptions): FaultOptions {
  return rest;
}

function outcomeOf(plan: FaultPlan): RecordedRequest['outcome'] {
  return plan.kind === 'respond' ? plan.status : plan.kind;
}

export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  const wire = wireFor(options.vendor);
  const clock = options.clock ?? systemClock;
  const env = { clock, random: options.random ?? seededRandom(1) };
  const basePath = new URL(wire.defaultBaseUrl).pathname.replace(/\/+$/, '');
  let scenario: FaultName = options.scenario ?? 'ok';
  let scenarioOptions: FaultOptions = options.options ?? {};
  let fault = createFaultModel(options.vendor, scenario, scenarioOptions, env);
  // When the scenario passes (schedule off, `times` used up), the vendor answers normally.
  let healthy = createFaultModel(options.vendor, 'ok', healthyOptions(scenarioOptions), env);
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();
  let origin = '';

  const server = http.createServer(async (req, res) => {
    const stop = new AbortController();
    const onGone = () => stop.abort(new Error('client went away'));
    res.on('close', onGone);
    closing.signal.addEventListener('abort', onGone, { once: true });
    res.on('close', () => closing.signal.removeEventListener('abort', onGone));
    const body = await readJson(req);
    const request: FaultRequest = { method: req.method ?? 'GET', url: `${origin}${req.url ?? '/'}`, headers: flatHeaders(req.headers), body };
    const record: RecordedRequest = { at: clock.now(), method: request.method, path: req.url ?? '/', headers: request.headers, body, scenario, outcome: 'not-found' };
    requests.push(record);
    if (request.method !== 'POST' || !wire.matches(request.url, `${origin}${basePath}`)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no ${wire.vendor} endpoint at ${req.method} ${req.url}` } }));
      return;
    }
    const plan = decideFirst([fault, healthy], request)!;
    record.outcome = outcomeOf(plan);
    await play(plan, req, res, clock, stop.signal).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    vendor: options.vendor,
    url: `${origin}${basePath}`,
    get scenario() {
      return scenario;
    },
    get fault() {
      return fault;
    },
    requests,
    setScenario(name, next = {}) {
      const model = createFaultModel(options.vendor, name, next, env);
      [scenario, scenarioOptions, fault] = [name, next, model];
      healthy = createFaultModel(options.vendor, 'ok', healthyOptions(scenarioOptions), env);
    },
    close() {
      closing.abort();
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
