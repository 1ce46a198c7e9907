/**
 * The wire formats (API dialects) Switchyard speaks on either side: a client's request arrives
 * in one (the gateway's ingress dialects), a vendor answers in one (the provider codecs). When
 * both sides speak the same one, bodies and stream events pass through instead of being
 * translated through the unified types (request-origin.ts, wire-body.ts, wire-events.ts).
 */

/** OpenAI Chat Completions: `chat.completion` bodies and `chat.completion.chunk` events. */
export const OPENAI_CHAT_COMPLETION = 'openai.chat.completion';

/** The Anthropic Messages API: `message` bodies and its typed SSE events. */
export const ANTHROPIC_MESSAGES = 'anthropic.messages';

/** The OpenAI Responses API: `response` bodies and its typed `response.*` events. */
export const OPENAI_RESPONSES = 'openai.responses';
