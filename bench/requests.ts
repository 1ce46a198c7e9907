/**
 * What the load generators send: Chat Completions (the default modes), and the other ingress
 * dialects against a vendor of the same dialect (the pass-through paths): Anthropic Messages
 * to an `anthropic` endpoint, OpenAI Responses to an `openai` endpoint, the Gemini API to a
 * `gemini` endpoint, JSON and streaming. Paths are under a contender's `/v1`.
 *
 * The `*-long` modes ask each stream for a long answer (bench/upstream.ts, `LONG_ASK`): 200 words,
 * one event a millisecond, as vendors stream tokens. A short answer in one write measures what a
 * request costs; a long one, an event at a time, what each event costs as well.
 *
 * `agent-messages-stream` and `agent-responses-stream` send what a coding agent sends each turn
 * (Claude Code, Codex): the same answer, but a request of 110 KB (system prompt or
 * instructions, 20 tools, 41 turns of history).
 */
import { LONG_ASK } from './upstream.js';

export type Mode =
  | 'chat'
  | 'stream'
  | 'messages'
  | 'messages-stream'
  | 'responses'
  | 'responses-stream'
  | 'gemini'
  | 'gemini-stream'
  | 'stream-long'
  | 'messages-stream-long'
  | 'responses-stream-long'
  | 'gemini-stream-long'
  | 'agent-messages-stream'
  | 'agent-responses-stream';

export const isStream = (mode: Mode) => mode === 'stream' || mode.endsWith('-stream') || isLong(mode);

/** The modes that ask for a long answer, streamed an event at a time. */
export const isLong = (mode: Mode) => mode.endsWith('-long');

const ask = [{ role: 'user', content: 'Say something short.' }];
const askLong = [{ role: 'user', content: LONG_ASK }];

/**
 * An agent's turn: its prompt, tools and history, 110 KB of JSON in either dialect. ASCII by
 * default; `BENCH_AGENT_UTF8=1` puts an em dash in every line, as prose and file contents do (a
 * body that is not ASCII takes V8's slow UTF-8 decoder from its first such character on).
 */
const line = process.env.BENCH_AGENT_UTF8 === '1' ? 'Read the file — make the change the user asked for, run the "tests", and report.\n' : 'Read the file, make the change the user asked for, run the "tests", and report.\n';
const paragraph = line.repeat(24);
const agentTools = Array.from({ length: 20 }, (_, i) => ({ name: `tool_${i}`, description: paragraph.slice(0, 900), schema: { type: 'object', properties: { path: { type: 'string' } } } }));
const agentTurns = Array.from({ length: 41 }, (_, i) => ({ role: i % 2 === 1 ? 'assistant' : 'user', text: paragraph }));
const agentMessages = JSON.stringify({
  model: 'claude',
  max_tokens: 256,
  system: [{ type: 'text', text: paragraph.repeat(6), cache_control: { type: 'ephemeral' } }],
  tools: agentTools.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
  messages: agentTurns.map((t) => ({ role: t.role, content: [{ type: 'text', text: t.text }] })),
  stream: true,
});
const agentResponses = JSON.stringify({
  model: 'gpt',
  instructions: paragraph.repeat(6),
  tools: agentTools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.schema })),
  input: agentTurns.map((t) => ({ role: t.role, content: t.text })),
  store: false,
  stream: true,
});

export const REQUESTS: Readonly<Record<Mode, { path: string; body: string }>> = {
  chat: { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: ask }) },
  stream: { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: ask, stream: true }) },
  messages: { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 256, messages: ask }) },
  'messages-stream': { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 256, messages: ask, stream: true }) },
  responses: { path: '/responses', body: JSON.stringify({ model: 'gpt', input: 'Say something short.' }) },
  'responses-stream': { path: '/responses', body: JSON.stringify({ model: 'gpt', input: 'Say something short.', stream: true }) },
  gemini: { path: '/models/gemini:generateContent', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say something short.' }] }] }) },
  'gemini-stream': { path: '/models/gemini:streamGenerateContent?alt=sse', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say something short.' }] }] }) },
  'stream-long': { path: '/chat/completions', body: JSON.stringify({ model: 'chat', messages: askLong, stream: true }) },
  'messages-stream-long': { path: '/messages', body: JSON.stringify({ model: 'claude', max_tokens: 1024, messages: askLong, stream: true }) },
  'responses-stream-long': { path: '/responses', body: JSON.stringify({ model: 'gpt', input: LONG_ASK, stream: true }) },
  'gemini-stream-long': { path: '/models/gemini:streamGenerateContent?alt=sse', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: LONG_ASK }] }] }) },
  'agent-messages-stream': { path: '/messages', body: agentMessages },
  'agent-responses-stream': { path: '/responses', body: agentResponses },
};

/** The agent-sized modes: measured and shown, but not held to the issue-41 ratio goals (stated for the small requests). */
export const isAgentSized = (mode: Mode) => mode.startsWith('agent-');
