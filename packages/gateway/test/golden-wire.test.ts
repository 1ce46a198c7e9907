/**
 * Golden wire captures of the three original dialects (Chat Completions, Anthropic Messages,
 * OpenAI Responses): answers, streams and errors, byte for byte, taken before the dialects
 * became codecs on one runner (issue 35). Every case replays a request against the real gateway
 * with scripted loopback vendors and compares status, the headers a client reads and the exact
 * body with the capture in fixtures/golden/. Only what is random by design is normalised (the
 * gateway's own ids and `created` timestamps).
 *
 * `UPDATE_GOLDEN=1` rewrites the captures: do that only for a deliberate wire change, and say so.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiProvider } from '@switchyard/provider-gemini';
import providers from '@switchyard/provider-openai';
import { GATEWAY_KEY, startGateway, stopAll, vendor, type Handler, type Loopback } from './support/harness.js';
import { anthropicVendor, chatVendor, geminiVendor, responsesVendor, textScript, weatherScript, type Script } from './support/scripted-vendors.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** The headers a client acts on; the rest (date, x-request-id, keep-alive) are the transport's. */
const KEPT_HEADERS = ['content-type', 'content-length', 'retry-after', 'x-should-retry', 'allow', 'www-authenticate', 'x-switchyard-endpoint', 'x-switchyard-attempts', 'x-switchyard-fallback', 'x-switchyard-degraded'];

/** The gateway's random ids and clocks, the only bytes allowed to differ between runs. */
function normalise(text: string): string {
  return text
    .replace(/\b(msg|resp|call|toolu|chatcmpl|fc|rs|req|item)_[0-9a-f]{32}\b/g, '$1_<id>')
    .replace(/\b(msg|resp|call|toolu|chatcmpl|fc|rs|item)_[0-9a-f]{24}\b/g, '$1_<id>')
    .replace(/"(created|created_at|completed_at)":\d{10}/g, '"$1":<time>');
}

interface Capture {
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  status: number;
  headers: Record<string, string>;
  body: string;
}

type VendorKind = 'openai' | 'anthropic' | 'gemini';

/** An OpenAI vendor answers by path: the Responses API or Chat Completions. */
function openaiVendor(script: Script): Handler {
  const responses = responsesVendor(script);
  const chat = chatVendor(script, 'gpt-upstream');
  return (req, res, body) => ((req.url ?? '').includes('/responses') ? responses(req, res, body) : chat(req, res, body));
}

const VENDORS: Record<VendorKind, (script: Script) => Handler> = { openai: openaiVendor, anthropic: anthropicVendor, gemini: geminiVendor };

/** A vendor that fails every request with its own error shape. */
function failing(status: number, kind: VendorKind): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '7' } : {}) });
    if (kind === 'anthropic') res.end(JSON.stringify({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : status === 400 ? 'invalid_request_error' : 'api_error', message: `vendor says ${status}` } }));
    else if (kind === 'gemini') res.end(JSON.stringify({ error: { code: status, message: `vendor says ${status}`, status: status === 429 ? 'RESOURCE_EXHAUSTED' : status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL' } }));
    else res.end(JSON.stringify({ error: { message: `vendor says ${status}`, type: status === 400 ? 'invalid_request_error' : 'server_error', code: null, param: status === 400 ? 'messages' : null } }));
  };
}

/** A vendor that starts a stream in its format and cuts the connection after the first text. */
function cutting(kind: VendorKind): Handler {
  return (req, res, raw) => {
    const whole = new Promise<string>((resolve) => {
      const chunks: string[] = [];
      const fake = { writeHead: () => fake, end: (text: string) => resolve(text ?? chunks.join('')), write: (t: string) => chunks.push(t) } as unknown as Parameters<Handler>[1];
      void VENDORS[kind](textScript('Hello ', 'there ', 'friend.'))(req, fake, raw);
    });
    void whole.then((text) => {
      const events = text.split(/\n\n/).filter(Boolean);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Enough events to commit a text delta, never the end.
      res.write(events.slice(0, kind === 'gemini' ? 1 : 4).join('\n\n') + '\n\n');
      setTimeout(() => res.destroy(), 30);
    });
  };
}

const chatTool = { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
const messagesTool = { name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const responsesTool = { type: 'function', name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false };

type DialectName = 'chat' | 'messages' | 'responses';
const PATHS: Record<DialectName, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };
const AUTH: Record<DialectName, Record<string, string>> = {
  chat: { authorization: `Bearer ${GATEWAY_KEY}` },
  messages: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
  responses: { authorization: `Bearer ${GATEWAY_KEY}` },
};

function askBody(dialect: DialectName, stream: boolean, tools: boolean): Record<string, unknown> {
  const s = stream ? { stream: true } : {};
  if (dialect === 'chat') return { model: 'chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Paris?' }], ...(tools ? { tools: [chatTool] } : {}), ...s };
  if (dialect === 'messages') return { model: 'chat', max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Weather in Paris?' }], ...(tools ? { tools: [messagesTool] } : {}), ...s };
  return { model: 'chat', instructions: 'Be brief.', input: 'Weather in Paris?', ...(tools ? { tools: [responsesTool] } : {}), ...s };
}

interface Case {
  name: string;
  vendors: Handler[];
  kinds: VendorKind[];
  method?: string;
  dialect: DialectName;
  path?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

function cases(): Case[] {
  const all: Case[] = [];
  for (const dialect of ['chat', 'messages', 'responses'] as DialectName[]) {
    for (const kind of ['openai', 'anthropic', 'gemini'] as VendorKind[]) {
      for (const stream of [false, true]) {
        for (const tools of [false, true]) {
          const script = tools ? weatherScript : textScript('Hello ', 'there ', 'friend.');
          all.push({ name: `${dialect}-${kind}-${stream ? 'stream' : 'json'}-${tools ? 'tool' : 'text'}`, dialect, kinds: [kind], vendors: [VENDORS[kind](script)], body: askBody(dialect, stream, tools) });
        }
      }
      for (const status of [400, 429, 500]) {
        for (const stream of [false, true]) all.push({ name: `${dialect}-${kind}-${stream ? 'stream' : 'json'}-vendor-${status}`, dialect, kinds: [kind], vendors: [failing(status, kind)], body: askBody(dialect, stream, false) });
      }
      all.push({ name: `${dialect}-${kind}-stream-cut`, dialect, kinds: [kind], vendors: [cutting(kind)], body: askBody(dialect, true, false) });
    }
    all.push({ name: `${dialect}-failover-anthropic-after-openai-500`, dialect, kinds: ['openai', 'anthropic'], vendors: [failing(500, 'openai'), anthropicVendor(textScript('Fell ', 'over.'))], body: askBody(dialect, true, false) });
    const ok = [openaiVendor(textScript('x'))];
    all.push({ name: `${dialect}-no-key`, dialect, kinds: ['openai'], vendors: ok, body: askBody(dialect, false, false), headers: {} });
    all.push({ name: `${dialect}-wrong-key`, dialect, kinds: ['openai'], vendors: ok, body: askBody(dialect, false, false), headers: { authorization: 'Bearer nope', 'x-api-key': 'nope' } });
    all.push({ name: `${dialect}-unknown-model`, dialect, kinds: ['openai'], vendors: ok, body: { ...askBody(dialect, false, false), model: 'nope' } });
    all.push({ name: `${dialect}-not-json`, dialect, kinds: ['openai'], vendors: ok, rawBody: '{"model":' });
    all.push({ name: `${dialect}-not-an-object`, dialect, kinds: ['openai'], vendors: ok, body: [1, 2] });
    all.push({ name: `${dialect}-bad-stream-flag`, dialect, kinds: ['openai'], vendors: ok, body: { ...askBody(dialect, false, false), stream: 'yes' } });
    all.push({ name: `${dialect}-missing-input`, dialect, kinds: ['openai'], vendors: ok, body: { model: 'chat' } });
    all.push({ name: `${dialect}-wrong-method`, dialect, kinds: ['openai'], vendors: ok, method: 'PUT', body: askBody(dialect, false, false) });
    all.push({ name: `${dialect}-unknown-subpath`, dialect, kinds: ['openai'], vendors: ok, path: `${PATHS[dialect]}/nope/deeper`, body: askBody(dialect, false, false) });
  }
  const ok = [openaiVendor(textScript('x'))];
  all.push({ name: 'models-list', dialect: 'chat', kinds: ['openai'], vendors: ok, method: 'GET', path: '/v1/models' });
  all.push({ name: 'models-one', dialect: 'chat', kinds: ['openai'], vendors: ok, method: 'GET', path: '/v1/models/chat' });
  all.push({ name: 'models-missing', dialect: 'chat', kinds: ['openai'], vendors: ok, method: 'GET', path: '/v1/models/nope' });
  all.push({ name: 'models-bad-escape', dialect: 'chat', kinds: ['openai'], vendors: ok, method: 'GET', path: '/v1/models/%E0%A4%A' });
  all.push({ name: 'embeddings', dialect: 'chat', kinds: ['openai'], vendors: [(_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }], model: 'e', usage: { prompt_tokens: 2, total_tokens: 2 } }))], path: '/v1/embeddings', body: { model: 'chat', input: 'hello' } });
  all.push({ name: 'messages-count-tokens-estimated', dialect: 'messages', kinds: ['openai'], vendors: ok, path: '/v1/messages/count_tokens', body: { model: 'chat', messages: [{ role: 'user', content: 'Weather in Paris?' }] } });
  all.push({ name: 'messages-count-tokens-vendor', dialect: 'messages', kinds: ['anthropic'], vendors: [(_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":17}')], path: '/v1/messages/count_tokens', body: { model: 'chat', messages: [{ role: 'user', content: 'Weather in Paris?' }] } });
  all.push({ name: 'responses-get-missing', dialect: 'responses', kinds: ['openai'], vendors: ok, method: 'GET', path: '/v1/responses/resp_nope' });
  all.push({ name: 'responses-delete-missing', dialect: 'responses', kinds: ['openai'], vendors: ok, method: 'DELETE', path: '/v1/responses/resp_nope' });
  all.push({ name: 'responses-previous-missing', dialect: 'responses', kinds: ['openai'], vendors: ok, body: { ...askBody('responses', false, false), previous_response_id: 'resp_gone' } });
  all.push({ name: 'unknown-url', dialect: 'chat', kinds: ['openai'], vendors: ok, path: '/v2/other' });
  return all;
}

const PROVIDERS = [anthropicProvider, geminiProvider, ...providers];

async function pipelineFor(c: Case): Promise<Pipeline> {
  const servers: Loopback[] = [];
  for (const handler of c.vendors) servers.push(await vendor(handler));
  const names = c.kinds.map((kind, i) => `${kind}${i}`);
  return createPipeline({
    endpoints: names.map((name, i) => ({ name, provider: c.kinds[i]!, baseUrl: servers[i]!.url, apiKey: 'vendor-key-0123456789' })),
    models: { chat: names.map((endpoint, i) => ({ endpoint, model: `${c.kinds[i]}-model` })) },
    providers: PROVIDERS,
  });
}

async function capture(c: Case): Promise<Capture> {
  const { origin } = await startGateway(await pipelineFor(c));
  const method = c.method ?? 'POST';
  const path = c.path ?? PATHS[c.dialect];
  const headers = { ...(c.headers ?? AUTH[c.dialect]), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) };
  const body = method === 'GET' || method === 'DELETE' ? undefined : (c.rawBody ?? JSON.stringify(c.body ?? {}));
  const res = await fetch(origin + path, { method, headers, body });
  const text = await res.text();
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return { request: { method, path, headers: c.headers ?? AUTH[c.dialect], body: c.rawBody ?? c.body }, status: res.status, headers: kept, body: normalise(text) };
}

describe('golden wire captures of the Chat Completions, Messages and Responses dialects', () => {
  beforeAll(() => {
    if (UPDATE) mkdirSync(FIXTURES, { recursive: true });
  });
  afterAll(stopAll);

  for (const c of cases()) {
    it(c.name, async () => {
      const got = await capture(c);
      const file = join(FIXTURES, `${c.name}.json`);
      if (UPDATE) writeFileSync(file, JSON.stringify(got, null, 2) + '\n');
      expect(existsSync(file), `no golden capture ${file} (UPDATE_GOLDEN=1 takes one)`).toBe(true);
      const want = JSON.parse(readFileSync(file, 'utf8')) as Capture;
      expect({ status: got.status, headers: got.headers }).toEqual({ status: want.status, headers: want.headers });
      expect(got.body).toBe(want.body);
      await stopAll();
    });
  }
});
