/**
 * Test support: recorded fixtures, SSE re-framing, VCR cassette bodies, and a pipeline wired to
 * the Gemini codec against a real loopback server (the production undici path).
 */
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { geminiProvider } from '../src/index.js';

/** Looks like a real AI Studio key so the redaction patterns are exercised too. */
export const API_KEY = 'AIzaSyTEST-secret-0123456789abcdefghijk';
export const MODEL = 'gemini-3-pro-preview';

export function fixture(name: string): string {
  return readFileSync(new URL(`../src/__fixtures__/${name}`, import.meta.url), 'utf8');
}

export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixture(name)) as T;
}

/** A vercel/ai `*.chunks.txt` file: one SSE data payload per line. */
export function chunkLines(name: string): string[] {
  return fixture(name).split('\n').filter((line) => line.trim().length > 0);
}

/** Rebuilds the wire the way Gemini frames it (no `[DONE]`: the finish chunk, then EOF). */
export function frameSse(lines: readonly string[], delimiter: '\r\n\r\n' | '\n\n' = '\r\n\r\n'): string {
  return lines.map((line) => `data: ${line}${delimiter}`).join('');
}

/**
 * The raw `body.string` of each interaction of a VCR cassette. They are YAML double-quoted
 * scalars folded over several lines; unfolding them here keeps the exact CRLF framing without a
 * YAML dependency.
 */
export function cassetteBodies(name: string): string[] {
  const text = fixture(name);
  const bodies: string[] = [];
  const re = /\n\s+string: "((?:[^"\\]|\\[\s\S])*)"/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lines = m[1].split('\n');
    const folded = lines
      .map((line, i) => (i === 0 ? line : line.trimStart()))
      .map((line, i) => (i === lines.length - 1 ? line : line.trimEnd()))
      .reduce((acc, line, i) => (i === 0 ? line : acc.endsWith('\\') && !acc.endsWith('\\\\') ? acc.slice(0, -1) + line : `${acc} ${line}`), '');
    bodies.push(JSON.parse(`"${folded.replace(/\t/g, '\\t')}"`) as string);
  }
  return bodies;
}

export type Respond = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void | Promise<void>;

export function json(status: number, body: unknown): Respond {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Writes the body event by event, so the client sees several socket reads. */
export function sse(body: string): Respond {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of body.split(/(?<=\r\n\r\n|\n\n)/)) {
      res.write(piece);
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  };
}

export interface GeminiRig {
  pipeline: Pipeline;
  server: Loopback;
  close(): Promise<void>;
}

/** One Gemini endpoint on a loopback server; `respond` may be a list served in order. */
export async function geminiRig(respond: Respond | Respond[], endpointOptions?: Record<string, unknown>): Promise<GeminiRig> {
  const queue = Array.isArray(respond) ? [...respond] : undefined;
  const server = await startLoopback((req, res, body) => (queue ? (queue.shift() ?? json(500, { error: { code: 500, message: 'no more answers', status: 'INTERNAL' } })) : (respond as Respond))(req, res, body));
  const pipeline = createPipeline({
    endpoints: [{ name: 'google', provider: 'gemini', baseUrl: server.url, apiKey: API_KEY, ...(endpointOptions ? { options: endpointOptions } : {}) }],
    models: { chat: [{ endpoint: 'google', model: MODEL }] },
    providers: [geminiProvider],
  });
  return { pipeline, server, close: async () => (await pipeline.close(), await server.close()) };
}
