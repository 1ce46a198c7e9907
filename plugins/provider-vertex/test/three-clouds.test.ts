/**
 * The same model through another cloud, end to end through the gateway: a Claude Code-shaped
 * Messages stream (signed thinking, tools, cache_control, context_management, its betas) fails
 * over Anthropic 529 → Claude on Bedrock → Claude on Vertex AI, passing through on every channel;
 * and a Gemini API 503 fails over to Gemini on Vertex, a Gemini API client's body and Vertex's
 * answer passing through. Each cloud is a loopback fake that checks
 * what the cloud checks (SigV4, OAuth tokens) and refuses what it refuses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { createGateway, DEFAULT_DIALECTS, type Gateway } from '@switchyard/gateway';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { createBedrockProvider } from '@switchyard/provider-bedrock';
import { geminiProvider } from '@switchyard/provider-gemini';
import { geminiDialect } from '@switchyard/provider-gemini/dialect';
import { createVertexProvider } from '../src/index.js';
import { CLAUDE_CODE_BETAS, claudeCodeBody } from '../../provider-bedrock/test/support/claude-code-shape.js';
import { startFakeBedrock, type FakeBedrock } from '../../provider-bedrock/test/support/fake-bedrock.js';
import { startFakeGoogle, type FakeGoogle } from './support/fake-google.js';

const GATEWAY_KEY = 'gw-three-clouds-key';
const AWS_KEY = { accessKeyId: 'AKIDTHREECLOUDS01', secretAccessKey: 'three/clouds/secret/0123456789abSECRET' };

interface Recorded {
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

/** A vendor API that answers every request with one failure in its own error shape. */
async function failingVendor(status: number, body: unknown): Promise<{ url: string; seen: Recorded[]; close(): Promise<void> }> {
  const seen: Recorded[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    seen.push({ body: JSON.parse(raw) as Record<string, unknown>, headers: req.headers });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let bedrock: FakeBedrock;
let google: FakeGoogle;
let anthropic: Awaited<ReturnType<typeof failingVendor>>;
let geminiApi: Awaited<ReturnType<typeof failingVendor>>;
let gateway: Gateway | undefined;
let keyFile: string;

beforeAll(async () => {
  bedrock = await startFakeBedrock({ keys: { [AWS_KEY.accessKeyId]: { secretAccessKey: AWS_KEY.secretAccessKey } } });
  google = await startFakeGoogle();
  anthropic = await failingVendor(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  geminiApi = await failingVendor(503, { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
  keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'sy-clouds-')), 'sa.json');
  writeFileSync(keyFile, JSON.stringify({ type: 'service_account', project_id: 'fake-project', token_uri: `${google.url}/token`, ...google.serviceAccount }));
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});
afterAll(async () => {
  await Promise.all([bedrock.close(), google.close(), anthropic.close(), geminiApi.close()]);
  rmSync(path.dirname(keyFile), { recursive: true, force: true });
});

async function serve(): Promise<string> {
  const pipeline: Pipeline = createPipeline({
    endpoints: [
      { name: 'anthropic', provider: 'anthropic', baseUrl: `${anthropic.url}/v1`, apiKey: 'sk-ant-three-clouds-0123456789' },
      { name: 'bedrock-us', provider: 'bedrock', region: 'us-east-1', baseUrl: bedrock.url },
      { name: 'vertex-eu', provider: 'vertex', project: 'fake-project', location: 'europe-west1', baseUrl: `${google.url}/v1`, options: { keyFile } },
      { name: 'gemini', provider: 'gemini', baseUrl: `${geminiApi.url}/v1beta`, apiKey: 'AIza-three-clouds-0123456789' },
    ],
    models: {
      'claude-sonnet-4-5': [
        { endpoint: 'anthropic', model: 'claude-sonnet-4-5-20250929' },
        { endpoint: 'bedrock-us', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        // Claude on Vertex takes an assistant prefill (the Messages API as is): declared, it can continue a cut stream.
        { endpoint: 'vertex-eu', model: 'claude-sonnet-4-5@20250929', capabilities: ['tools', 'vision', 'stream', 'prefill'] },
      ],
      'gemini-2.5-flash': [
        { endpoint: 'gemini', model: 'gemini-2.5-flash' },
        { endpoint: 'vertex-eu', model: 'gemini-2.5-flash' },
      ],
    },
    providers: [anthropicProvider, geminiProvider, createBedrockProvider({ source: () => async () => ({ ...AWS_KEY }) }), createVertexProvider()],
  });
  gateway = createGateway({ pipeline, dialects: [...DEFAULT_DIALECTS, geminiDialect], server: { host: '127.0.0.1', port: 0, apiKeys: [GATEWAY_KEY], exposeUpstream: true } });
  return (await gateway.listen()).url.replace(/\/v1$/, '');
}

/** Claude Code's request through the official SDK, streamed; the final message as the SDK assembled it. */
async function claudeCode(origin: string) {
  const client = new Anthropic({ baseURL: origin, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const { model: _model, stream: _stream, ...body } = claudeCodeBody();
  const stream = client.messages.stream({ ...(body as unknown as Anthropic.MessageCreateParams), model: 'claude-sonnet-4-5' }, { headers: { 'anthropic-beta': CLAUDE_CODE_BETAS.join(',') } });
  const message = await stream.finalMessage();
  const { response } = await stream.withResponse();
  return { message, endpoint: response.headers.get('x-switchyard-endpoint'), dropped: response.headers.get('x-switchyard-dropped') };
}

function expectClaudeCodeAnswer(message: Anthropic.Message): void {
  expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
  expect(message.content[0]).toMatchObject({ type: 'thinking', signature: 'EqoBCkgIARABGAIiQnew' });
  expect(message.content[2]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'pnpm test -- math' } });
  expect(message.stop_reason).toBe('tool_use');
}

describe('Claude on three channels', () => {
  it('Anthropic 529 → Claude on Bedrock: the Claude Code stream passes through, every accepted field kept', async () => {
    const origin = await serve();
    const { message, endpoint, dropped } = await claudeCode(origin);
    expectClaudeCodeAnswer(message);
    expect(endpoint).toBe('bedrock-us');
    // The betas Bedrock refuses were dropped, and the answer says so.
    expect(dropped).toBe('anthropic-beta:claude-code-20250219, anthropic-beta:fine-grained-tool-streaming-2025-05-14');
    // Anthropic got the request as Claude Code wrote it, betas and all.
    const first = anthropic.seen.at(-1)!;
    expect(first.headers['anthropic-beta']).toBe(CLAUDE_CODE_BETAS.join(','));
    expect(first.body).toMatchObject({ context_management: claudeCodeBody().context_management, thinking: claudeCodeBody().thinking });
    // Bedrock got the same body but for what it requires: no model/stream, its version, its betas.
    const { model: _m, stream: _s, ...rest } = claudeCodeBody();
    expect(bedrock.seen.at(-1)!.body).toEqual({ anthropic_version: 'bedrock-2023-05-31', ...rest, anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-management-2025-06-27'] });
  });

  it('Anthropic 529 → Bedrock throttled → Claude on Vertex AI', async () => {
    const origin = await serve();
    bedrock.next({ type: 'http-error', status: 429, exception: 'ThrottlingException', message: 'Too many tokens, please wait before trying again.' });
    const before = google.seen.length;
    const { message, endpoint } = await claudeCode(origin);
    expectClaudeCodeAnswer(message);
    expect(endpoint).toBe('vertex-eu');
    const seen = google.seen.slice(before);
    expect(seen).toHaveLength(1);
    const { model: _m, ...rest } = claudeCodeBody();
    expect(seen[0]!.body).toEqual({ anthropic_version: 'vertex-2023-10-16', ...rest, stream: true });
    expect(seen[0]!.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14,context-management-2025-06-27');
  });

  it('a Bedrock stream cut mid-answer continues on Claude on Vertex with the client\'s own body and the partial answer as prefill', async () => {
    const origin = await serve();
    // Bedrock streams the thinking block and the text, then an exception frame before the tool call.
    bedrock.next({ type: 'stream-exception', afterEvents: 8, exception: 'modelStreamErrorException', message: 'The model stream failed.' });
    const before = google.seen.length;
    const client = new Anthropic({ baseURL: origin, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const { model: _model, stream: _stream, ...body } = claudeCodeBody();
    const stream = client.messages.stream({ ...(body as unknown as Anthropic.MessageCreateParams), model: 'claude-sonnet-4-5' }, { headers: { 'anthropic-beta': CLAUDE_CODE_BETAS.join(',') } });
    const message = await stream.finalMessage();
    // One whole answer: Bedrock's text, then what Vertex wrote after it, ending as Claude ended it.
    expect(message.content.filter((b) => b.type === 'text').map((b) => (b as Anthropic.TextBlock).text).join('')).toContain('The test compares floats exactly. ');
    expect(message.stop_reason).toBe('tool_use');
    const seen = google.seen.slice(before);
    expect(seen).toHaveLength(1);
    // Vertex got what the client wrote (tools, system, cache_control, betas' fields…) with the partial
    // answer as the last turn; thinking is off for a prefill (Anthropic refuses one with thinking on),
    // so the thinking settings, the edits that clear thinking and the blocks Bedrock signed are left out.
    const { model: _m, thinking: _thinking, ...rest } = claudeCodeBody();
    const sent = seen[0]!.body as Record<string, any>;
    expect(sent.anthropic_version).toBe('vertex-2023-10-16');
    expect(sent.thinking).toBeUndefined();
    expect(sent.tools).toEqual(rest.tools);
    expect(sent.system).toEqual(rest.system);
    expect(JSON.stringify(sent.messages)).not.toContain('"type":"thinking"');
    expect(sent.messages).toHaveLength((rest.messages as unknown[]).length + 1);
    const last = sent.messages.at(-1);
    expect(last.role).toBe('assistant');
    expect(JSON.stringify(last.content)).toContain('The test compares floats exactly.');
  });

  it('Gemini API 503 → Gemini on Vertex AI', async () => {
    const origin = await serve();
    const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const before = google.seen.length;
    const answer = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toBe('Hello from Vertex.');
    expect(geminiApi.seen.length).toBeGreaterThan(0);
    expect(google.seen.slice(before).map((s) => s.path)).toEqual(['/v1/projects/fake-project/locations/europe-west1/publishers/google/models/gemini-2.5-flash:generateContent']);
  });

  it('a Gemini API client → Gemini API 503 → Gemini on Vertex AI: its body goes on byte for byte, Vertex’s answer comes back as written', async () => {
    const origin = await serve();
    // Key order and spacing of the client's own text, a thought signature, and a Google-only tool (only Gemini deployments take it).
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnbmVkLWJ5LWdvb2dsZQ==' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { celsius: -3 } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }, { googleSearch: {} }],
      generationConfig: { thinkingConfig: { thinkingBudget: 512, includeThoughts: true }, temperature: 0.2 },
    };
    const text = JSON.stringify(body, null, 1);
    const ask = (method: string) => fetch(`${origin}/v1beta/models/gemini-2.5-flash:${method}`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: text });
    const publisherModel = '/v1/projects/fake-project/locations/europe-west1/publishers/google/models/gemini-2.5-flash';

    const before = google.seen.length;
    const json = await ask('generateContent');
    expect(json.status).toBe(200);
    expect(json.headers.get('x-switchyard-endpoint')).toBe('vertex-eu');
    expect(await json.text()).toBe(google.geminiAnswers.at(-1));
    const streamed = await ask('streamGenerateContent?alt=sse');
    expect(streamed.status).toBe(200);
    // The same events, each as SSE text (Vertex frames them with CRLF).
    expect(await streamed.text()).toBe(google.geminiAnswers.at(-1)!.replaceAll('\r\n\r\n', '\n\n'));

    const seen = google.seen.slice(before);
    expect(seen.map((s) => s.path)).toEqual([`${publisherModel}:generateContent`, `${publisherModel}:streamGenerateContent?alt=sse`]);
    for (const s of seen) {
      expect(s.raw).toBe(text);
      // Vertex is authorised with the service account's token; the client's gateway key stays at the gateway.
      expect(s.headers['x-goog-api-key']).toBeUndefined();
      expect(s.token).toMatch(/^ya29\.jwt\./);
    }
    expect(geminiApi.seen.at(-1)!.body).toEqual(body);
  });
});
