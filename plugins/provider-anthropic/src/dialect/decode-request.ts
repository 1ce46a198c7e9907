/**
 * A Messages API request → the pipeline's unified request (the OpenAI Chat shape), with the
 * client's own body kept beside it (core's request-origin.ts) for Anthropic targets, which get
 * it as the client wrote it. Every field, block, tool and header is met in the translation table
 * (translation-table.ts): hints (`context_management`, `cache_control`, `thinking`, `top_k`,
 * `service_tier`, server web tools, `anthropic-beta`) are dropped for other vendors and
 * disclosed; capabilities make their targets skipped before any attempt, and the request gets a
 * 400 naming the field when no Anthropic target is left. What is malformed is a 400 naming the
 * field at once, before routing. (`thinking` is a hint: Chat Completions models without reasoning
 * reject `reasoning_effort`; reasoning models think on their own terms.) Thinking blocks without
 * a signature (reasoning another vendor streamed back as thinking) are left out of what
 * Anthropic gets: it would reject them.
 */
import { meetField, type DialectHeaders, type RequestFeature } from '@switchyard/core/dialect';
import { type ChatRequest, type ToolChoice } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, setRequestOrigin, type RequestOrigin } from '@switchyard/core/wire';
import type { PathRecorder } from './client-paths.js';
import { TurnDecoder } from './decode-turns.js';
import { invalid, isObject, optionalNumber, requireString, typeOf, type Json } from './json-checks.js';
import { MESSAGES_TABLE } from './translation-table.js';

/** The Messages request headers an Anthropic target gets as the client sent them. */
const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

export interface DecodeOptions {
  /** `/v1/messages/count_tokens`: no `max_tokens`, no `stream`. */
  countOnly?: boolean;
  /** Records where each unified field came from (done again only when an error needs it). */
  paths?: PathRecorder;
  /** The body's JSON text as the client sent it: kept as the origin's `text` when the body goes on unchanged. */
  bodyText?: string;
  /** `bodyText` as the client's bytes (kept as the origin's `bytes` with its text). */
  bodyBytes?: Uint8Array;
}

export interface DecodedMessages {
  request: ChatRequest;
  stream: boolean;
  /** What a vendor of another API does without, and what only Anthropic can do (translation-table.ts). */
  hints: readonly RequestFeature[];
  capabilities: readonly RequestFeature[];
}

function toolChoiceOf(value: unknown): { choice?: ToolChoice; parallel?: false } {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalid('tool_choice', `must be an object, got ${typeOf(value)}`);
  const { type } = value;
  let choice: ToolChoice;
  if (type === 'auto') choice = 'auto';
  else if (type === 'any') choice = 'required';
  else if (type === 'none') choice = 'none';
  else if (type === 'tool') choice = { type: 'function', function: { name: requireString(value.name, 'tool_choice.name') } };
  else throw invalid('tool_choice.type', `must be "auto", "any", "tool" or "none", got ${JSON.stringify(type) ?? 'nothing'}`);
  const disable = value.disable_parallel_tool_use;
  if (disable !== undefined && typeof disable !== 'boolean') throw invalid('tool_choice.disable_parallel_tool_use', `must be a boolean, got ${typeOf(disable)}`);
  return disable === true ? { choice, parallel: false } : { choice };
}

function checkThinking(value: unknown): void {
  if (value === undefined || value === null) return;
  if (!isObject(value) || typeof value.type !== 'string') throw invalid('thinking', 'must be an object with a "type"');
  if (value.type === 'enabled' && (typeof value.budget_tokens !== 'number' || !Number.isInteger(value.budget_tokens) || value.budget_tokens < 1)) {
    throw invalid('thinking.budget_tokens', 'must be a positive integer');
  }
}

function stopSequences(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid('stop_sequences', `must be an array of strings, got ${typeOf(value)}`);
  value.forEach((s, i) => requireString(s, `stop_sequences[${i}]`));
  return value.length > 0 ? (value as string[]) : undefined;
}

function forwardedHeaders(headers: DialectHeaders): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const name of FORWARDED_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value.length > 0) (out ??= {})[name] = value;
  }
  return out;
}

/**
 * What Anthropic gets: the client's body without our `switchyard` hints and without unsigned
 * thinking blocks. Without the thinking block of the turn whose tool results it answers,
 * Anthropic rejects a request with thinking on, so thinking goes off for that request.
 */
function anthropicBody(body: Json, decoder: TurnDecoder): Json {
  const unsigned = decoder.unsigned;
  if (body.switchyard === undefined && !unsigned) return body;
  const messages = (body.messages as Json[]).slice();
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0 && lastAssistant < 0; i--) if (messages[i]!.role === 'assistant') lastAssistant = i;
  const thinkingOff = unsigned?.has(lastAssistant) === true;
  const out: Json = {};
  for (const key in body) {
    if (key === 'switchyard' || (thinkingOff && key === 'thinking') || !Object.hasOwn(body, key)) continue;
    out[key] = body[key];
  }
  if (!unsigned) return out;
  for (const [i, drop] of unsigned) messages[i] = Object.assign({}, messages[i], { content: (messages[i]!.content as Json[]).filter((_, j) => !drop.includes(j)) });
  out.messages = messages;
  return out;
}

/** Decodes a Messages (or count_tokens) body; the unified request carries the client's body as its origin. */
export function decodeMessagesRequest(body: unknown, headers: DialectHeaders, options: DecodeOptions = {}): DecodedMessages {
  if (!isObject(body)) throw invalid('(body)', 'the request body must be a JSON object');
  const decoder = new TurnDecoder(options.paths);
  const model = body.model;
  if (typeof model !== 'string' || model.length === 0) throw invalid('model', 'is required and must be a non-empty string');
  let maxTokens: number | undefined;
  if (!options.countOnly) {
    const value = body.max_tokens;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalid('max_tokens', value === undefined ? 'is required' : 'must be a positive integer');
    maxTokens = value;
  }
  const stream = body.stream;
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') throw invalid('stream', `must be a boolean, got ${typeOf(stream)}`);

  decoder.system(body.system);
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid('messages', 'must be a non-empty array of turns');
  messages.forEach((message, i) => decoder.turn(message, i));
  const tools = decoder.tools(body.tools);
  const { choice, parallel } = toolChoiceOf(body.tool_choice);
  checkThinking(body.thinking);
  const stop = stopSequences(body.stop_sequences);
  const temperature = optionalNumber(body.temperature, 'temperature');
  const topP = optionalNumber(body.top_p, 'top_p');
  optionalNumber(body.top_k, 'top_k');
  const metadata = body.metadata;
  if (metadata !== undefined && metadata !== null && !isObject(metadata)) throw invalid('metadata', `must be an object, got ${typeOf(metadata)}`);
  const userId = metadata?.user_id;
  if (userId !== undefined && userId !== null) requireString(userId, 'metadata.user_id');

  for (const key in body) {
    if (!Object.hasOwn(body, key)) continue;
    const value = body[key];
    if (key === 'output_config' && isObject(value)) {
      for (const member in value) if (Object.hasOwn(value, member)) decoder.meet(`output_config.${member}`, `output_config.${member}`);
    } else meetField(decoder, key, MESSAGES_TABLE);
  }
  const forwarded = forwardedHeaders(headers);
  if (forwarded?.['anthropic-beta']) decoder.meet('header:anthropic-beta', 'anthropic-beta');

  const request: ChatRequest = { model, messages: decoder.messages };
  if (maxTokens !== undefined) request.max_completion_tokens = maxTokens;
  if (tools && tools.length > 0) request.tools = tools;
  if (choice !== undefined) request.tool_choice = choice;
  if (parallel === false) request.parallel_tool_calls = false;
  if (stop) request.stop = stop;
  if (temperature !== undefined) request.temperature = temperature;
  if (topP !== undefined) request.top_p = topP;
  if (typeof userId === 'string' && userId.length > 0) request.user = userId;
  if (stream === true) request.stream = true;
  if (body.switchyard !== undefined) request.switchyard = body.switchyard as ChatRequest['switchyard'];

  const origin: { -readonly [K in keyof RequestOrigin]: RequestOrigin[K] } = { format: ANTHROPIC_MESSAGES, body: anthropicBody(body, decoder) };
  // The client's text goes with a body it still is (no hints taken out, no unsigned thinking dropped).
  if (options.bodyText !== undefined && origin.body === body) {
    origin.text = options.bodyText;
    if (options.bodyBytes) origin.bytes = options.bodyBytes;
  }
  if (forwarded) origin.headers = forwarded;
  const { capabilities, hints } = decoder.features;
  if (capabilities.length > 0) origin.untranslatable = capabilities;
  if (hints.length > 0) origin.hints = hints;
  setRequestOrigin(request, origin);
  return { request, stream: stream === true, hints, capabilities };
}
