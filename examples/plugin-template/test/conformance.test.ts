/**
 * The Switchyard conformance suite against recorded Example Chat answers: replace the samples
 * with your vendor's real recordings (its own wire format, byte for byte).
 */
import { runProviderConformance } from '@switchyard/testkit';
import { exampleChatProvider } from '../src/index.js';

const usage = { input: 9, output: 4 };
const sse = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
const apiError = (code: string, message: string) => ({ error: { code, message } });

runProviderConformance(exampleChatProvider, {
  model: 'example-large',
  text: {
    response: { body: { id: 'r1', model: 'example-large-2026', text: 'Hello there!', stop: 'end', usage } },
    expectedText: 'Hello there!',
    stream: { sse: sse([{ type: 'delta', text: 'Hello' }, { type: 'delta', text: ' there!' }, { type: 'done', stop: 'end', usage }]) },
  },
  toolCall: {
    response: { body: { id: 'r2', model: 'example-large', text: '', tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }], stop: 'tool_use', usage } },
    stream: { sse: sse([{ type: 'tool', index: 0, id: 'call_2', name: 'get_weather', arguments: '{"city":' }, { type: 'tool', index: 0, arguments: '"Paris"}' }, { type: 'done', stop: 'tool_use', usage }]) },
    expected: { name: 'get_weather', arguments: { city: 'Paris' } },
  },
  errors: {
    'rate-limit': { status: 429, headers: { 'retry-after': '2' }, body: apiError('rate_limited', 'Too many requests'), retryAfterMs: 2000 },
    server: { status: 500, body: apiError('internal', 'internal error') },
    overloaded: { status: 503, body: '<html>Service Unavailable</html>' },
    auth: { status: 401, body: apiError('unauthorized', 'invalid key') },
    payment: { status: 402, body: apiError('payment_required', 'add credit to continue') },
    'context-length': { status: 400, body: apiError('invalid_request', 'maximum context length is 32000 tokens') },
    'bad-request': { status: 400, body: apiError('invalid_request', 'temperature must be between 0 and 2') },
  },
  request: {
    path: '/chat',
    body: { system: 'system', user: 'messages[0].text', maxTokens: 'max_output_tokens', temperature: 'temperature', toolName: 'tools[0].name', toolResult: 'messages[2].text' },
    roles: { 'messages[0].role': 'user', 'messages[1].role': 'assistant', 'messages[2].role': 'tool' },
  },
  streamError: { stream: { sse: sse([{ type: 'delta', text: 'Hel' }, { type: 'error', error: { code: 'overloaded', message: 'try again later' } }]) }, kinds: ['overloaded'] },
  finishReasons: {
    length: { response: { body: { id: 'r3', model: 'example-large', text: 'Hello th', stop: 'max_tokens', usage } }, stream: { sse: sse([{ type: 'delta', text: 'Hello th' }, { type: 'done', stop: 'max_tokens', usage }]) } },
    content_filter: { response: { body: { id: 'r4', model: 'example-large', text: '', stop: 'filtered', usage } } },
  },
});
