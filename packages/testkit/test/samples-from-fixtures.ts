/** Fixture readers and the OpenAI samples, shared by the first-party run and the planted-bug copies. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConformanceSamples } from '../src/index.js';

export const fixture = (pkg: string, name: string) => readFileSync(fileURLToPath(new URL(`../../../plugins/${pkg}/src/__fixtures__/${name}`, import.meta.url)), 'utf8');
export const json = (pkg: string, name: string) => JSON.parse(fixture(pkg, name));
export const lines = (pkg: string, name: string) => fixture(pkg, name).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

/* OpenAI: chunks re-framed as `data: …` + `data: [DONE]` (fixtures/SOURCES.md). */
const openaiText = json('provider-openai', 'openai-text.json');
const openaiChunks = lines('provider-openai', 'openai-text.chunks.txt');
const dsTool = json('provider-openai', 'deepseek-tool-call.json');
const dsToolChunks = lines('provider-openai', 'deepseek-tool-call.chunks.txt');
const openaiSse = (chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
const oaiError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });
const OPENAI_ROLES = { 'messages[0].role': 'system', 'messages[1].role': 'user', 'messages[2].role': 'assistant', 'messages[3].role': 'tool' };

export const openaiSamples: ConformanceSamples = {
  model: 'gpt-4.1-nano',
  text: {
    response: { body: openaiText },
    expectedText: openaiText.choices[0].message.content,
    stream: { sse: openaiSse(openaiChunks) },
    expectedStreamText: openaiChunks.map((c: { choices: { delta?: { content?: string } }[] }) => c.choices[0]?.delta?.content ?? '').join(''),
  },
  toolCall: {
    response: { body: dsTool },
    stream: { sse: openaiSse(dsToolChunks) },
    expected: { name: dsTool.choices[0].message.tool_calls[0].function.name, arguments: JSON.parse(dsTool.choices[0].message.tool_calls[0].function.arguments) },
  },
  errors: {
    'rate-limit': { status: 429, headers: { 'retry-after-ms': '1500' }, body: oaiError('Rate limit reached for requests', 'requests', 'rate_limit_exceeded'), retryAfterMs: 1500 },
    payment: { status: 429, body: json('provider-openai', 'openai-error.1.json') },
    server: { status: 500, body: oaiError('The server had an error while processing your request.', 'server_error', null) },
    overloaded: { status: 503, body: '<html><body>503 Service Unavailable</body></html>' },
    auth: { status: 401, body: oaiError('Incorrect API key provided: sk-conf***CRET.', 'invalid_request_error', 'invalid_api_key') },
    'context-length': { status: 400, body: oaiError("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", 'invalid_request_error', 'context_length_exceeded') },
    'content-filter': { status: 400, body: oaiError('The response was filtered due to the prompt triggering content management policy.', 'invalid_request_error', 'content_filter') },
    'bad-request': { status: 400, body: json('provider-openai', 'reasoning-model-temperature-error.json') },
  },
  request: { path: '/chat/completions', body: { system: 'messages[0].content', user: 'messages[1].content', maxTokens: 'max_tokens', temperature: 'temperature', toolName: 'tools[0].function.name', toolResult: 'messages[3].content' }, roles: OPENAI_ROLES },
  streamError: { stream: { sse: openaiSse([openaiChunks[0], openaiChunks[1]]).replace('data: [DONE]\n\n', `data: ${JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error', code: null } })}\n\n`) }, kinds: ['server', 'overloaded'] },
  finishReasons: {
    length: { response: { body: { ...openaiText, choices: [{ ...openaiText.choices[0], finish_reason: 'length' }] } }, stream: { sse: openaiSse([openaiChunks[1], { ...openaiChunks[1], choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }]) } },
    content_filter: { response: { body: { ...openaiText, choices: [{ ...openaiText.choices[0], finish_reason: 'content_filter' }] } } },
  },
};
