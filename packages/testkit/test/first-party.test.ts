/**
 * The first-party providers pass the same conformance suite third-party authors run, fed with
 * the recorded vendor fixtures the adapters are tested against.
 */
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiProvider } from '@switchyard/provider-gemini';
import { openaiProvider } from '@switchyard/provider-openai';
import { runProviderConformance } from '../src/index.js';
import { json, lines, openaiSamples } from './samples-from-fixtures.js';

runProviderConformance(openaiProvider, openaiSamples);

/* Anthropic: event-typed SSE, `event: <type>` + `data: …`. */
const anthropicText = json('provider-anthropic', 'anthropic-text.json');
const anthropicChunks = lines('provider-anthropic', 'anthropic-text.chunks.txt');
const anthropicTool = json('provider-anthropic', 'anthropic-json-tool.1.json');
const anthropicToolChunks = lines('provider-anthropic', 'anthropic-json-tool.1.chunks.txt');
const eventSse = (chunks: { type: string }[]) => chunks.map((c) => `event: ${c.type}\ndata: ${JSON.stringify(c)}\n\n`).join('');
const antError = (type: string, message: string) => ({ type: 'error', error: { type, message }, request_id: 'req_conformance' });
const antToolUse = anthropicTool.content.find((b: { type: string }) => b.type === 'tool_use');

runProviderConformance(anthropicProvider, {
  model: 'claude-sonnet-4-5',
  text: {
    response: { body: anthropicText },
    expectedText: anthropicText.content.map((b: { text?: string }) => b.text ?? '').join(''),
    stream: { sse: eventSse(anthropicChunks) },
    expectedStreamText: anthropicChunks.map((c: { delta?: { text?: string } }) => c.delta?.text ?? '').join(''),
  },
  toolCall: {
    response: { body: anthropicTool },
    stream: { sse: eventSse(anthropicToolChunks) },
    expected: { name: antToolUse.name, arguments: antToolUse.input },
    expectedStream: {
      name: anthropicToolChunks.find((c: { content_block?: { type: string } }) => c.content_block?.type === 'tool_use').content_block.name,
      arguments: JSON.parse(anthropicToolChunks.map((c: { delta?: { partial_json?: string } }) => c.delta?.partial_json ?? '').join('')),
    },
  },
  errors: {
    'rate-limit': { status: 429, headers: { 'retry-after': '7' }, body: antError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'), retryAfterMs: 7000 },
    overloaded: { status: 529, body: antError('overloaded_error', 'Overloaded') },
    server: { status: 500, body: antError('api_error', 'Internal server error') },
    auth: { status: 401, body: antError('authentication_error', 'invalid x-api-key') },
    payment: { status: 402, body: antError('billing_error', 'Your credit balance is too low') },
    'context-length': { status: 400, body: antError('invalid_request_error', 'prompt is too long: 209353 tokens > 199999 maximum') },
    'not-found': { status: 404, body: antError('not_found_error', 'model: claude-does-not-exist') },
  },
  request: { path: '/messages', headers: { 'anthropic-version': '2023-06-01' }, body: { system: 'system', user: 'messages[0].content[0].text', maxTokens: 'max_tokens', temperature: 'temperature', toolName: 'tools[0].name', toolResult: 'messages[2].content[0].content' }, roles: { 'messages[0].role': 'user', 'messages[1].role': 'assistant', 'messages[2].role': 'user', 'messages[2].content[0].type': 'tool_result' } },
  streamError: { stream: { sse: eventSse(anthropicChunks.slice(0, 4)) + eventSse([antError('overloaded_error', 'Overloaded')]) }, kinds: ['overloaded'] },
  finishReasons: { length: { response: { body: { ...anthropicText, stop_reason: 'max_tokens' } } } },
});

/* Gemini: `data: …` events with CRLF framing and no terminator. */
const geminiText = json('provider-gemini', 'google-text.json');
const geminiChunks = lines('provider-gemini', 'google-text.chunks.txt');
const geminiTool = json('provider-gemini', 'google-tool-call.json');
const geminiToolChunks = lines('provider-gemini', 'google-tool-call.chunks.txt');
const crlfSse = (chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('');
type GeminiPart = { text?: string; thought?: boolean; functionCall?: { name: string; args: unknown } };
const geminiTextOf = (r: { candidates?: { content?: { parts?: GeminiPart[] } }[] }) => (r.candidates?.[0]?.content?.parts ?? []).filter((p) => !p.thought).map((p) => p.text ?? '').join('');
const geminiCall = geminiTool.candidates[0].content.parts.find((p: GeminiPart) => p.functionCall).functionCall;
const gError = (code: number, status: string, message: string, details: unknown[] = []) => ({ error: { code, message, status, details } });

runProviderConformance(geminiProvider, {
  model: 'gemini-2.5-flash',
  text: {
    response: { body: geminiText },
    expectedText: geminiTextOf(geminiText),
    stream: { sse: crlfSse(geminiChunks) },
    expectedStreamText: geminiChunks.map(geminiTextOf).join(''),
  },
  toolCall: { response: { body: geminiTool }, stream: { sse: crlfSse(geminiToolChunks) }, expected: { name: geminiCall.name, arguments: geminiCall.args } },
  errors: {
    'rate-limit': { status: 429, body: json('provider-gemini', 'google-429-retry-info.json'), retryAfterMs: 34_400 },
    overloaded: { status: 503, body: gError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.') },
    server: { status: 500, body: gError(500, 'INTERNAL', 'An internal error has occurred.') },
    auth: { status: 400, body: gError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]) },
    'context-length': { status: 400, body: gError(400, 'INVALID_ARGUMENT', 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).') },
  },
  request: { path: '/models/gemini-2.5-flash:generateContent', body: { system: 'systemInstruction.parts[0].text', user: 'contents[0].parts[0].text', maxTokens: 'generationConfig.maxOutputTokens', temperature: 'generationConfig.temperature', toolName: 'tools[0].functionDeclarations[0].name', toolResult: 'contents[2].parts[0].functionResponse.response.result' }, roles: { 'contents[0].role': 'user', 'contents[1].role': 'model', 'contents[2].role': 'user' } },
  finishReasons: { length: { response: { body: { ...geminiText, candidates: [{ ...geminiText.candidates[0], finishReason: 'MAX_TOKENS' }] } } } },
});
