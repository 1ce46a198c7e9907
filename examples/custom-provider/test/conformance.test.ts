import { runProviderConformance } from '@switchyard/testkit';
import { acmeProvider } from '../src/index.js';

const sse = (events: { type: string }[]) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const usage = { tokens: { input_tokens: 9, output_tokens: 4 } };

runProviderConformance(acmeProvider, {
  model: 'acme-large',
  text: {
    response: { body: { id: 'a1', finish_reason: 'COMPLETE', message: { role: 'assistant', content: [{ type: 'text', text: 'Hello there!' }] }, usage } },
    expectedText: 'Hello there!',
    stream: {
      sse: sse([
        { type: 'message-start', id: 'a2' } as { type: string },
        { type: 'content-delta', delta: { message: { content: { text: 'Hello' } } } } as { type: string },
        { type: 'content-delta', delta: { message: { content: { text: ' there!' } } } } as { type: string },
        { type: 'message-end', delta: { finish_reason: 'COMPLETE', usage } } as { type: string },
      ]),
    },
  },
  toolCall: {
    response: { body: { id: 'a3', finish_reason: 'TOOL_CALL', message: { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, usage } },
    stream: {
      sse: sse([
        { type: 'message-start', id: 'a4' } as { type: string },
        { type: 'tool-call-start', delta: { message: { tool_calls: { id: 'call_2', function: { name: 'get_weather', arguments: '' } } } } } as { type: string },
        { type: 'tool-call-delta', delta: { message: { tool_calls: { function: { arguments: '{"city":' } } } } } as { type: string },
        { type: 'tool-call-delta', delta: { message: { tool_calls: { function: { arguments: '"Paris"}' } } } } } as { type: string },
        { type: 'message-end', delta: { finish_reason: 'TOOL_CALL', usage } } as { type: string },
      ]),
    },
    expected: { name: 'get_weather', arguments: { city: 'Paris' } },
  },
  errors: {
    'rate-limit': { status: 429, headers: { 'retry-after': '3' }, body: { message: 'You are using a Trial key, which is limited to 10 API calls / minute.' }, retryAfterMs: 3000 },
    server: { status: 500, body: { message: 'internal server error' } },
    overloaded: { status: 503, body: '<html>Service Unavailable</html>' },
    auth: { status: 401, body: { message: 'invalid api token' } },
    payment: { status: 402, body: { message: 'Please add a payment method to continue.' } },
    'context-length': { status: 400, body: { message: 'too many tokens: total number of tokens in the prompt cannot exceed 128000' } },
  },
  request: { path: '/chat', body: { system: 'messages[0].content', user: 'messages[1].content', maxTokens: 'max_tokens', temperature: 'temperature', toolName: 'tools[0].function.name', toolResult: 'messages[3].content' }, roles: { 'messages[0].role': 'system', 'messages[1].role': 'user', 'messages[2].role': 'assistant', 'messages[3].role': 'tool' } },
  finishReasons: { length: { response: { body: { id: 'a5', finish_reason: 'MAX_TOKENS', message: { role: 'assistant', content: [{ type: 'text', text: 'Hello th' }] }, usage } } } },
});
