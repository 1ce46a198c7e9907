/**
 * Claude on Azure AI Foundry against a loopback fake of a Foundry resource that checks what
 * Foundry checks for Claude (the `/anthropic/v1/messages` route, the resource key in
 * `x-api-key`, `anthropic-version`, the deployment name as `model`) and answers as Anthropic does
 * (Claude on Foundry runs the Messages API as is).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type ChatRequest, type Pipeline, type StreamPart } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, setRequestOrigin, wireBodyOf, wireTextOf } from '@switchyard/core/wire';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { azureFoundryAnthropicProvider } from './index.js';
import { checkFoundryAnthropicEndpoint } from './base-url.js';

const KEY = 'foundry-claude-key-0123456789abcdef';
const ANSWER = JSON.parse(readFileSync(new URL('./__fixtures__/anthropic-text.json', import.meta.url), 'utf8')) as Record<string, unknown>;
let server: Loopback | undefined;
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await server?.close();
  pipeline = server = undefined;
});

const events = [
  ['message_start', { type: 'message_start', message: { id: 'msg_f1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Look both ways.' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }],
  ['message_stop', { type: 'message_stop' }],
] as const;

async function fakeFoundryClaude(): Promise<Loopback> {
  return startLoopback((req, res, body) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.headers['x-api-key'] !== KEY) return send(401, { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } });
    if (req.url !== '/anthropic/v1/messages') return send(404, { error: { code: '404', message: 'Resource not found' } });
    if (!req.headers['anthropic-version']) return send(400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
    const asked = JSON.parse(body) as { model?: string; stream?: boolean };
    if (asked.model !== 'my-claude-deployment') return send(404, { type: 'error', error: { type: 'not_found_error', message: `deployment ${asked.model} not found` } });
    if (!asked.stream) return send(200, ANSWER);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
  });
}

function foundryPipeline(baseUrl: string): Pipeline {
  pipeline = createPipeline({
    endpoints: [{ name: 'foundry-claude', provider: 'azure-foundry-anthropic', baseUrl, apiKey: KEY }],
    models: { claude: [{ endpoint: 'foundry-claude', model: 'my-claude-deployment' }] },
    providers: [azureFoundryAnthropicProvider],
  });
  return pipeline;
}

const clientBody = {
  model: 'claude',
  max_tokens: 2048,
  system: [{ type: 'text', text: 'Be careful.', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'How do I cross the street?', cache_control: { type: 'ephemeral' } }] }],
  thinking: { type: 'enabled', budget_tokens: 1024 },
};

function messagesRequest(): ChatRequest {
  const unified: ChatRequest = { model: 'claude', messages: [{ role: 'user', content: 'How do I cross the street?' }] };
  setRequestOrigin(unified, { format: ANTHROPIC_MESSAGES, body: clientBody, headers: { 'anthropic-version': '2023-06-01' } });
  return unified;
}

describe('Claude on Azure AI Foundry (provider azure-foundry-anthropic)', () => {
  it('passes a Messages request through to {resource}/anthropic/v1/messages with x-api-key; the answer keeps its wire body', async () => {
    server = await fakeFoundryClaude();
    const answer = await foundryPipeline(server.url.replace(/\/v1$/, '/anthropic/v1')).chat(messagesRequest());
    const seen = server.requests[0]!;
    expect(seen.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.parse(seen.body)).toEqual({ ...clientBody, model: 'my-claude-deployment' });
    expect(JSON.parse(wireBodyOf(answer, ANTHROPIC_MESSAGES)!)).toEqual(ANSWER);
  });

  it('streams Claude\'s own events through', async () => {
    server = await fakeFoundryClaude();
    const parts: StreamPart[] = [];
    for await (const part of await foundryPipeline(server.url.replace(/\/v1$/, '/anthropic/v1')).stream(messagesRequest())) parts.push(part);
    expect(parts.map((p) => wireTextOf(p) ?? '').join('')).toContain('"text":"Look both ways."');
    expect(parts.find((p) => p.type === 'finish')).toMatchObject({ finishReason: 'stop', usage: { prompt_tokens: 20, completion_tokens: 5 } });
  });

  it('validate names the URL mistakes: no baseUrl, a resource root, the /messages route itself', () => {
    expect(checkFoundryAnthropicEndpoint({ baseUrl: 'https://res.services.ai.azure.com/anthropic/v1' })).toBeUndefined();
    expect(checkFoundryAnthropicEndpoint({})).toMatch(/needs its baseUrl/);
    expect(checkFoundryAnthropicEndpoint({ baseUrl: 'https://res.services.ai.azure.com/anthropic' })).toMatch(/"https:\/\/res.services.ai.azure.com\/anthropic\/v1"/);
    expect(checkFoundryAnthropicEndpoint({ baseUrl: 'https://res.services.ai.azure.com' })).toMatch(/answers at "https:\/\/res.services.ai.azure.com\/anthropic\/v1"/);
    expect(checkFoundryAnthropicEndpoint({ baseUrl: 'https://res.services.ai.azure.com/anthropic/v1/messages' })).toMatch(/without \/messages/);
  });
});
