/** The unified request → the Chat Completions body the vendor receives. */
import type { ChatMessage, ChatRequest, EmbeddingRequest } from '@switchyard/core';

export interface ChatBodyOptions {
  stream: boolean;
  /** The upstream model (the candidate's, never the caller's logical name). */
  model: string;
  /** When set, only these top-level fields are sent (vendors that reject unknown parameters). */
  allowedFields?: ReadonlySet<string>;
  /** Send assistant `reasoning_content` back (DeepSeek tool turns want it; OpenAI rejects it). */
  keepReasoning: boolean;
}

function upstreamMessage(message: ChatMessage, keepReasoning: boolean): Record<string, unknown> {
  // providerMetadata is ours: it must never reach a vendor.
  const { providerMetadata: _ours, reasoning_content, ...rest } = message;
  return keepReasoning && reasoning_content !== undefined ? { ...rest, reasoning_content } : rest;
}

export function buildChatBody(request: ChatRequest, options: ChatBodyOptions): Record<string, unknown> {
  const fields = request as unknown as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  // Fields are skipped rather than deleted afterwards: a `delete` turns the body into a slow
  // dictionary object just before it is serialised.
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined || key === 'switchyard' || !Object.hasOwn(fields, key)) continue;
    // OpenAI rejects stream_options on a non-streaming call.
    if (!options.stream && (key === 'stream' || key === 'stream_options')) continue;
    if (options.allowedFields && !options.allowedFields.has(key)) continue;
    body[key] = value;
  }
  body.model = options.model;
  body.messages = request.messages.map((m) => upstreamMessage(m, options.keepReasoning));
  if (options.stream) {
    body.stream = true;
    // Usage arrives in a trailing chunk only when asked for; the caller's explicit choice wins.
    body.stream_options = { include_usage: true, ...request.stream_options };
  }
  return body;
}

export function buildEmbeddingsBody(request: EmbeddingRequest, model: string): Record<string, unknown> {
  const { switchyard: _hints, ...fields } = request;
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
  body.model = model;
  return body;
}

/**
 * Chat Completions parameters Azure OpenAI documents (GA 2024-10-21 plus later previews and its
 * own `data_sources`); anything else is dropped because Azure answers unknown ones with a 400.
 */
export const AZURE_CHAT_FIELDS: ReadonlySet<string> = new Set([
  'model', 'messages', 'temperature', 'top_p', 'stream', 'stream_options', 'stop', 'max_tokens', 'max_completion_tokens',
  'presence_penalty', 'frequency_penalty', 'logit_bias', 'user', 'n', 'seed', 'logprobs', 'top_logprobs',
  'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'functions', 'function_call',
  'data_sources', 'reasoning_effort', 'store', 'metadata', 'modalities', 'prediction', 'audio', 'user_security_context',
]);
