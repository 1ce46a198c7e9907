/**
 * What the load generators send: Chat Completions (the default modes), and the other ingress
 * dialects against a vendor of the same dialect (the pass-through paths): Anthropic Messages
 * to an `anthropic` endpoint, OpenAI Responses to an `openai` endpoint, the Gemini API to a
 * `gemini` endpoint, JSON and streaming. Paths are under a contender's `/v1`.
 */
export type Mode = 'chat' | 'stream' | 'messages' | 'messages-stream' | 'responses' | 'responses-stream' | 'gemini' | 'gemini-stream';

export const isStream = (mode: Mode) => mode === 'stream' || mode.endsWith('-stream');

const ask = [{ role: 'user', content: 'Say something short.' }];

export const REQUESTS: Readonly<Record<Mode, { path: string; body: string }>> = {
  chat: { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: ask }) },
  stream: { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: ask, stream: true }) },
  messages: { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 256, messages: ask }) },
  'messages-stream': { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 256, messages: ask, stream: true }) },
  responses: { path: '/responses', body: JSON.stringify({ model: 'gpt', input: 'Say something short.' }) },
  'responses-stream': { path: '/responses', body: JSON.stringify({ model: 'gpt', input: 'Say something short.', stream: true }) },
  gemini: { path: '/models/gemini:generateContent', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say something short.' }] }] }) },
  'gemini-stream': { path: '/models/gemini:streamGenerateContent?alt=sse', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say something short.' }] }] }) },
};
