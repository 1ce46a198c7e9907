/** The unified request → the Chat Completions body the vendor receives. */
import { type ChatMessage, type ChatRequest, type EmbeddingRequest } from '@switchyard/core';
import { modelEditIn, OPENAI_CHAT_COMPLETION, requestOriginOf, splicedBody, type BodyEdit, type SplicedBody } from '@switchyard/core/wire';

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
    // Usage arrives in a trailing chunk only when asked for: always asked for, whatever the
    // caller said, so every stream is billed at the vendor's count (the gateway strips that
    // chunk again for a client that did not ask for it).
    body.stream_options = { ...request.stream_options, include_usage: true };
  }
  return body;
}

/**
 * The client's own Chat Completions text, sent on with only the upstream model (and, for a
 * stream, the usage request) spliced in, when that is exactly what `buildChatBody` would send:
 * the body is the one the gateway parsed and nothing changed it, it has no `switchyard` hints
 * and no field or message data this codec drops. Saves serialising the body again. Undefined
 * when any of that does not hold: the caller serialises as before.
 */
export function passedThroughChatBody(request: ChatRequest, options: ChatBodyOptions): SplicedBody | undefined {
  const origin = requestOriginOf(request, OPENAI_CHAT_COMPLETION);
  if (origin?.text === undefined || origin.body !== request) return undefined;
  const fields = request as unknown as Record<string, unknown>;
  if (fields.switchyard !== undefined) return undefined;
  if (options.allowedFields) for (const key in fields) if (!options.allowedFields.has(key)) return undefined;
  for (const message of request.messages) {
    if (message.providerMetadata !== undefined || (message.reasoning_content !== undefined && !options.keepReasoning)) return undefined;
  }
  if (options.stream !== (request.stream === true)) return undefined;
  const { text } = origin;
  const model = modelEditIn(text, request.model, options.model);
  if (model === undefined) return undefined;
  const edits: BodyEdit[] = [model];
  if (!options.stream) {
    if (request.stream_options !== undefined) return undefined;
  } else if (request.stream_options !== undefined) {
    // The client's own `include_usage: true` is sent as it is; any other stream_options are rebuilt with it.
    if (request.stream_options?.include_usage !== true) return undefined;
  } else {
    // Usage arrives in a trailing chunk only when asked for: asked for here, as buildChatBody does.
    const close = text.lastIndexOf('}');
    if (close < model.end) return undefined;
    edits.push({ start: close, end: close, text: ',"stream_options":{"include_usage":true}' });
  }
  return splicedBody(text, origin.bytes, edits);
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
