/**
 * Test harness: replays recorded vendor answers from a real loopback server and drives them
 * through the real core pipeline and its undici transport.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { createPipeline, isSwitchyardError, type EndpointConfig, type Pipeline, type ProviderV1, type StreamPart, type SwitchyardError } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../../packages/core/test/support/loopback.js';

const FIXTURES = fileURLToPath(new URL('../__fixtures__/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(FIXTURES + name, 'utf8');
}

export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

/** The parsed chunk objects of a vercel/ai `*.chunks.txt` file. */
export function fixtureChunks<T = Record<string, unknown>>(name: string): T[] {
  return fixtureText(name).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
}

/** `*.chunks.txt` lost its SSE envelope; rebuild it as SOURCES.md explains. */
export function reframeChunks(name: string, between: (index: number) => string = () => ''): string[] {
  const lines = fixtureText(name).split('\n').filter((l) => l.trim());
  return [...lines.map((line, i) => `${between(i)}data: ${line}\n\n`), 'data: [DONE]\n\n'];
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** The exact body: raw SSE text for streams, JSON text for parsed bodies. */
  body: string;
  requestBody?: unknown;
}

/** One interaction of a pydantic-ai VCR cassette. */
export function cassette(name: string, index = 0): RecordedResponse {
  const doc = parseYaml(fixtureText(name)) as {
    interactions: { request: { parsed_body?: unknown }; response: { status: { code: number }; headers: Record<string, string[]>; body?: { string: string }; parsed_body?: unknown } }[];
  };
  const { request, response } = doc.interactions[index];
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(response.headers)) {
    // Framing headers are the loopback server's business.
    if (!['content-length', 'transfer-encoding', 'connection'].includes(k)) headers[k] = v.join(', ');
  }
  const body = response.body?.string ?? JSON.stringify(response.parsed_body);
  return { status: response.status.code, headers, body, requestBody: request.parsed_body };
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Written one piece at a time, so events cross socket writes as they do on the wire. */
  body: string | string[];
}

export interface Vendor extends Loopback {
  /** The reply for the next requests. */
  reply: Reply;
}

export async function startVendor(reply: Reply): Promise<Vendor> {
  const holder: { reply: Reply } = { reply };
  const server = await startLoopback(async (_req, res) => {
    const { status = 200, headers = {}, body } = holder.reply;
    const pieces = typeof body === 'string' ? [body] : body;
    const sse = pieces.length > 1 || pieces[0]?.startsWith('data:') || pieces[0]?.startsWith(':');
    res.writeHead(status, { 'content-type': sse ? 'text/event-stream' : 'application/json', ...headers });
    for (const piece of pieces) {
      res.write(piece);
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  return Object.defineProperty(server, 'reply', {
    get: () => holder.reply,
    set: (next: Reply) => {
      holder.reply = next;
    },
  }) as Vendor;
}

export const SECRET_KEY = 'sk-test-SECRETSECRETSECRET0123456789';

export function pipelineFor(provider: ProviderV1, endpoint: Partial<EndpointConfig> & { baseUrl: string }, model = 'upstream-model'): Pipeline {
  return createPipeline({
    endpoints: [{ name: 'up', provider: provider.id, apiKey: SECRET_KEY, ...endpoint }],
    models: { chat: [{ endpoint: 'up', model }] },
    providers: [provider],
  });
}

export async function streamParts(pipeline: Pipeline, request: Record<string, unknown> = {}): Promise<StreamPart[]> {
  const stream = await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], ...request });
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The error the single attempt failed with (unwrapping the pipeline's all-candidates-failed). */
export async function attemptError(promise: Promise<unknown>): Promise<SwitchyardError> {
  try {
    await promise;
  } catch (error) {
    if (!isSwitchyardError(error)) throw error;
    return error.kind === 'all-candidates-failed' && error.attempts?.length ? error.attempts[0] : error;
  }
  throw new Error('expected the call to fail');
}

const opened: (() => Promise<void>)[] = [];

/** Closes every vendor and pipeline `replay` opened (use in afterEach). */
export async function closeAll(): Promise<void> {
  for (const close of opened.splice(0).reverse()) await close();
}

/** A loopback vendor answering `reply`, and a pipeline whose only candidate is that vendor. */
export async function replay(provider: ProviderV1, reply: Reply, endpoint: Partial<EndpointConfig> | ((url: string) => Partial<EndpointConfig>) = {}, model = 'upstream-model'): Promise<{ vendor: Vendor; pipeline: Pipeline }> {
  const vendor = await startVendor(reply);
  opened.push(() => vendor.close());
  const pipeline = pipelineFor(provider, { baseUrl: vendor.url, ...(typeof endpoint === 'function' ? endpoint(vendor.url) : endpoint) }, model);
  opened.push(() => pipeline.close());
  return { vendor, pipeline };
}
