/**
 * Test helpers: recorded fixtures served from real loopback servers, and pipelines that run
 * the Anthropic codec through the real core and undici transport.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type http from 'node:http';
import { createPipeline, type AttemptRecord, type EndpointConfig, type Pipeline } from '@switchyard/core';
import { startLoopback, type Handler, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { anthropicProvider } from '../src/index.js';

export { startLoopback, type Loopback };

const FIXTURES = new URL('../src/__fixtures__/', import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name));
}

/** `*.chunks.txt` keeps only the data payloads; Anthropic's wire names each event after its `type`. */
export function reframe(chunks: string): string {
  return chunks
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join('');
}

/** One SSE event the way Anthropic writes it. */
export function sseEvent(data: { type: string } & Record<string, unknown>): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

interface CassetteInteraction {
  request: { uri: string; parsed_body?: unknown };
  response: { status: { code: number }; headers: Record<string, string[]>; body?: { string: string }; parsed_body?: unknown };
}

// The yaml package is a dependency of core, not of this package: borrow core's copy for tests.
const requireFromCore = createRequire(new URL('../../../packages/core/package.json', import.meta.url));
const YAML = requireFromCore('yaml') as { parse(text: string): unknown };

export function cassette(name: string): CassetteInteraction[] {
  return (YAML.parse(fixtureText(name)) as { interactions: CassetteInteraction[] }).interactions;
}

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection']);

/** Replays a cassette's response: its status, headers and the exact raw body bytes. */
export function replay(interaction: CassetteInteraction): Handler {
  return (_req, res) => {
    const { status, headers, body, parsed_body } = interaction.response;
    for (const [name, values] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) res.setHeader(name, values);
    res.writeHead(status.code);
    res.end(body ? body.string : JSON.stringify(parsed_body));
  };
}

export function sse(body: string, headers: http.OutgoingHttpHeaders = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...headers });
    res.end(body);
  };
}

export function json(status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

export interface TestRig {
  pipeline: Pipeline;
  servers: Loopback[];
  attempts: AttemptRecord[];
  close(): Promise<void>;
}

/**
 * A pipeline whose logical model `chat` has one Anthropic deployment per handler, tried in
 * order (endpoints `a`, `b`, …), each behind its own loopback server.
 */
export async function anthropicRig(handlers: Handler[], endpoint: Partial<EndpointConfig> = {}): Promise<TestRig> {
  const servers = await Promise.all(handlers.map((h) => startLoopback(h)));
  const names = servers.map((_, i) => String.fromCharCode(97 + i));
  const pipeline = createPipeline({
    endpoints: servers.map((s, i) => ({ name: names[i]!, provider: 'anthropic', baseUrl: s.url, apiKey: `sk-ant-test-key-${names[i]}-0123456789abcdef`, ...endpoint })),
    models: { chat: names.map((name) => ({ endpoint: name, model: `claude-${name}` })) },
    providers: [anthropicProvider],
  });
  const attempts: AttemptRecord[] = [];
  pipeline.events.on('attempt:end', (outcome) => attempts.push(outcome));
  return {
    pipeline,
    servers,
    attempts,
    async close() {
      await pipeline.close();
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
