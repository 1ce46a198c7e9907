/** Starts the real gateway on loopback with mock vendors (real loopback servers) behind it. */
import type http from 'node:http';
import OpenAI from 'openai';
import { createPipeline, type Pipeline, type PipelineOptions } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { completion, sseBody, startLoopback, textChunks, type Handler, type Loopback } from '../../../core/test/support/loopback.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/index.js';

export { completion, sseBody, textChunks, startLoopback, type Handler, type Loopback };

export const VENDOR_KEY = 'sk-vendor-0123456789abcdef';
export const GATEWAY_KEY = 'gw-key-test-1';

const running: { close(): Promise<void> }[] = [];

/** Closes everything the test started (call from afterEach). */
export async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((r) => r.close().catch(() => undefined)));
}

/** A vendor that answers like OpenAI: a completion, or an SSE stream of `chunks` when asked to stream. */
export function answers(chunks: string[], model = 'upstream-model'): Handler {
  return (_req, res, body) => {
    if (JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody([...textChunks(chunks).map((c) => ({ ...(c as object), model })), { id: 'c1', model, choices: [], usage: { prompt_tokens: 4, completion_tokens: chunks.length, total_tokens: 4 + chunks.length } }]));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(chunks.join(''), model)));
    }
  };
}

/** A vendor that fails with an OpenAI-style error body. */
export function fails(status: number, message = 'upstream trouble', extra: { code?: string; type?: string; headers?: Record<string, string> } = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...extra.headers });
    res.end(JSON.stringify({ error: { message, type: extra.type ?? 'server_error', code: extra.code ?? null } }));
  };
}

export async function vendor(handler: Handler): Promise<Loopback> {
  const server = await startLoopback(handler);
  running.push(server);
  return server;
}

/**
 * Wraps a vendor's handler so each request waits until `release()`; `waiting()` counts those
 * held. `release({ from: 'now on' })` also lets every later request through at once.
 */
export function held(handler: Handler) {
  const waiting: (() => void)[] = [];
  let open = false;
  return {
    handler: async (...args: Parameters<Handler>) => {
      if (!open) await new Promise<void>((r) => waiting.push(r));
      return handler(...args);
    },
    waiting: () => waiting.length,
    release(options: { from?: 'now on' } = {}) {
      if (options.from) open = true;
      for (const go of waiting.splice(0)) go();
    },
  };
}

export interface PipelineSpec {
  /** Endpoint name → its loopback server, in priority order. */
  vendors: Record<string, Loopback>;
  /** Logical model name (default "chat"). */
  model?: string;
  extra?: Partial<PipelineOptions>;
}

export function pipelineFor(spec: PipelineSpec): Pipeline {
  const names = Object.keys(spec.vendors);
  return createPipeline({
    endpoints: names.map((name) => ({ name, provider: 'openai', baseUrl: spec.vendors[name].url, apiKey: VENDOR_KEY })),
    models: { [spec.model ?? 'chat']: names.map((endpoint) => ({ endpoint, model: `${endpoint}-model` })) },
    providers: [openaiProvider],
    ...spec.extra,
  });
}

export interface Harness {
  gateway: Gateway;
  client: OpenAI;
  /** `http://127.0.0.1:port` without `/v1`. */
  origin: string;
  baseURL: string;
}

export async function startGateway(pipeline: Pipeline, options: Partial<GatewayOptions> = {}): Promise<Harness> {
  const gateway = createGateway({ pipeline, ...options, server: { host: '127.0.0.1', port: 0, apiKeys: [GATEWAY_KEY], ...options.server } });
  running.push(gateway);
  const address = await gateway.listen();
  const client = new OpenAI({ baseURL: address.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  return { gateway, client, baseURL: address.url, origin: address.url.replace(/\/v1$/, '') };
}

/** A raw HTTP call (for what an SDK would not send). */
export async function raw(origin: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(origin + path, { method: init.method ?? 'POST', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json', ...init.headers }, body: init.body as BodyInit | undefined });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const chatBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], ...extra });

export type VendorRequest = http.IncomingMessage;
