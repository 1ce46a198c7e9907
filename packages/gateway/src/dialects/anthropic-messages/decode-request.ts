/**
 * A Messages API request → the pipeline's unified request (the OpenAI Chat shape), with the
 * client's own body kept beside it (core's request-origin.ts) for Anthropic targets, which get
 * it as the client wrote it. What the unified shape cannot carry is listed as untranslatable:
 * targets of other vendors are skipped before any attempt, and the request gets a 400 naming
 * the field when no Anthropic target is left. What is malformed is a 400 naming the field at
 * once, before routing.
 *
 * Kept for Anthropic only, dropped for other vendors (hints that change no content):
 * `cache_control`, `top_k`, `service_tier`, `thinking` (Chat Completions models without
 * reasoning reject `reasoning_effort`; reasoning models think on their own terms), a
 * document's `context`. Thinking blocks without a signature (reasoning another vendor streamed
 * back as thinking) are left out of what Anthropic gets: it would reject them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ANTHROPIC_MESSAGES, setRequestOrigin, SwitchyardError, type ChatMessage, type ChatRequest, type ContentPart, type ToolCall, type ToolChoice, type ToolDefinition, type Untranslatable } from '@switchyard/core';
import { PathRecorder } from './client-paths.js';

/** The Messages request headers an Anthropic target gets as the client sent them. */
const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/** The top-level fields this decoder translates. */
const KNOWN_FIELDS = new Set(['model', 'max_tokens', 'messages', 'system', 'stream', 'tools', 'tool_choice', 'stop_sequences', 'temperature', 'top_p', 'metadata', 'switchyard']);

/** Top-level fields only Anthropic can act on: the request goes to Anthropic targets only. */
const ANTHROPIC_ONLY_FIELDS: Readonly<Record<string, string>> = {
  container: 'a code execution container',
  mcp_servers: 'remote MCP servers',
  context_management: 'context management',
};

/** Top-level fields other vendors do without (see the file comment). */
const HINT_FIELDS = new Set(['top_k', 'service_tier', 'thinking']);

/** Blocks only Anthropic's own tools produce or read: the request goes to Anthropic targets only. */
const ANTHROPIC_ONLY_BLOCKS = new Set([
  'search_result',
  'container_upload',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'tool_reference',
]);

const ASSISTANT_BLOCKS = new Set(['tool_use', 'thinking', 'redacted_thinking']);
const USER_BLOCKS = new Set(['image', 'document', 'tool_result']);

export interface DecodeOptions {
  /** `/v1/messages/count_tokens`: no `max_tokens`, no `stream`. */
  countOnly?: boolean;
  /** Records where each unified field came from (done again only when an error needs it). */
  paths?: PathRecorder;
}

export interface DecodedMessages {
  request: ChatRequest;
  stream: boolean;
}

type Json = Record<string, unknown>;

function invalid(path: string, message: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `${path}: ${message}`, { path, status: 400, retryable: false });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalid(path, `must be a string, got ${typeOf(value)}`);
  return value;
}

function optionalNumber(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(path, `must be a number, got ${typeOf(value)}`);
  return value;
}

function blocksOf(value: unknown, path: string): Json[] {
  if (!Array.isArray(value)) throw invalid(path, `must be a string or an array of content blocks, got ${typeOf(value)}`);
  for (let j = 0; j < value.length; j++) {
    const block = value[j];
    if (!isObject(block) || typeof block.type !== 'string') throw invalid(`${path}[${j}]`, 'must be a content block: an object with a string "type"');
  }
  return value as Json[];
}

/** Text parts only: one string (vendors that take only string content take it too). */
function compact(parts: ContentPart[]): string | ContentPart[] {
  let text = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.type !== 'text') return parts;
    text += i === 0 ? (part.text as string) : `\n${part.text as string}`;
  }
  return text;
}

class MessagesDecoder {
  readonly untranslatable: Untranslatable[] = [];
  readonly messages: ChatMessage[] = [];
  /** Unsigned thinking blocks found (message index → block indexes): Anthropic gets the body without them. */
  unsigned: Map<number, number[]> | undefined;

  constructor(private readonly paths: PathRecorder | undefined) {}

  foreign(path: string, what: string): void {
    this.untranslatable.push({ path, what });
  }

  private push(message: ChatMessage, path: string, parts?: string[], toolCalls?: string[]): void {
    this.paths?.message(this.messages.length, path, parts, toolCalls);
    this.messages.push(message);
  }

  system(value: unknown): void {
    if (value === undefined || value === null) return;
    if (typeof value === 'string') {
      if (value.length > 0) this.push({ role: 'system', content: value }, 'system');
      return;
    }
    const blocks = blocksOf(value, 'system');
    const texts: string[] = [];
    blocks.forEach((block, j) => {
      if (block.type !== 'text') throw invalid(`system[${j}]`, `must be a text block, got "${block.type}"`);
      texts.push(requireString(block.text, `system[${j}].text`));
    });
    if (texts.length > 0) this.push({ role: 'system', content: texts.join('\n') }, 'system');
  }

  turn(message: unknown, i: number): void {
    const path = `messages[${i}]`;
    if (!isObject(message)) throw invalid(path, 'must be an object with a role and content');
    const { role, content } = message;
    if (role !== 'user' && role !== 'assistant') throw invalid(`${path}.role`, `must be "user" or "assistant", got ${JSON.stringify(role) ?? 'nothing'}`);
    if (typeof content === 'string') {
      this.push({ role, content }, path);
      return;
    }
    const blocks = blocksOf(content, `${path}.content`);
    if (role === 'user') this.userTurn(blocks, `${path}.content`);
    else this.assistantTurn(blocks, `${path}.content`, i);
  }

  /** A user turn: tool results become tool messages, in order; the other blocks, user messages between them. */
  private userTurn(blocks: Json[], path: string): void {
    let parts: ContentPart[] = [];
    let partPaths: string[] = [];
    const flush = () => {
      if (parts.length === 0) return;
      this.push({ role: 'user', content: compact(parts) }, path.slice(0, -'.content'.length), partPaths);
      parts = [];
      partPaths = [];
    };
    const before = this.messages.length;
    blocks.forEach((block, j) => {
      const at = `${path}[${j}]`;
      if (block.type === 'tool_result') {
        flush();
        this.toolResult(block, at);
        return;
      }
      const part = this.userPart(block, at, 'user');
      if (part) {
        parts.push(part);
        partPaths.push(at);
      }
    });
    flush();
    // A turn of Anthropic-only blocks still counts as a turn (only Anthropic gets it anyway).
    if (this.messages.length === before) this.push({ role: 'user', content: '' }, path.slice(0, -'.content'.length));
  }

  /** A block of user content (or of a tool result) as a unified part; undefined when it has none. */
  private userPart(block: Json, at: string, where: 'user' | 'tool_result'): ContentPart | undefined {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: requireString(block.text, `${at}.text`) };
      case 'image':
        return this.image(block, at);
      case 'document':
        return this.document(block, at);
      default:
        if (ANTHROPIC_ONLY_BLOCKS.has(block.type as string)) {
          this.foreign(at, `a ${block.type as string} block`);
          return undefined;
        }
        if (ASSISTANT_BLOCKS.has(block.type as string)) throw invalid(`${at}.type`, `a ${block.type as string} block belongs in an assistant turn`);
        if (block.type === 'tool_result') throw invalid(`${at}.type`, 'a tool_result cannot be nested in a tool_result');
        throw invalid(`${at}.type`, `unknown content block type "${block.type as string}" in a ${where === 'user' ? 'user turn' : 'tool_result'}`);
    }
  }

  private image(block: Json, at: string): ContentPart | undefined {
    const source = block.source;
    if (!isObject(source)) throw invalid(`${at}.source`, 'must be an object');
    if (source.type === 'base64') {
      const mediaType = requireString(source.media_type, `${at}.source.media_type`);
      const data = requireString(source.data, `${at}.source.data`);
      return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
    }
    if (source.type === 'url') return { type: 'image_url', image_url: { url: requireString(source.url, `${at}.source.url`) } };
    if (source.type === 'file') {
      this.foreign(`${at}.source`, 'an image uploaded to the Anthropic Files API');
      return undefined;
    }
    throw invalid(`${at}.source.type`, `must be "base64", "url" or "file", got ${JSON.stringify(source.type) ?? 'nothing'}`);
  }

  /** A document as the unified file part (OpenAI Chat's `file`): base64 and plain-text sources. */
  private document(block: Json, at: string): ContentPart | undefined {
    const source = block.source;
    if (!isObject(source)) throw invalid(`${at}.source`, 'must be an object');
    if (block.title !== undefined && block.title !== null) requireString(block.title, `${at}.title`);
    if (isObject(block.citations) && block.citations.enabled === true) {
      this.foreign(`${at}.citations`, 'a document with citations');
      return undefined;
    }
    const filename = typeof block.title === 'string' && block.title.length > 0 ? block.title : undefined;
    let fileData: string;
    if (source.type === 'base64') {
      fileData = `data:${requireString(source.media_type, `${at}.source.media_type`)};base64,${requireString(source.data, `${at}.source.data`)}`;
    } else if (source.type === 'text') {
      fileData = `data:text/plain;base64,${Buffer.from(requireString(source.data, `${at}.source.data`), 'utf8').toString('base64')}`;
    } else if (source.type === 'content' || source.type === 'url' || source.type === 'file') {
      const what = { content: 'a document made of content blocks', url: 'a document fetched by Anthropic from a URL', file: 'a document uploaded to the Anthropic Files API' }[source.type];
      this.foreign(`${at}.source`, what);
      return undefined;
    } else {
      throw invalid(`${at}.source.type`, `must be "base64", "text", "content", "url" or "file", got ${JSON.stringify(source.type) ?? 'nothing'}`);
    }
    return { type: 'file', file: filename ? { file_data: fileData, filename } : { file_data: fileData } };
  }

  private toolResult(block: Json, at: string): void {
    const toolCallId = requireString(block.tool_use_id, `${at}.tool_use_id`);
    if (block.is_error !== undefined && typeof block.is_error !== 'boolean') throw invalid(`${at}.is_error`, `must be a boolean, got ${typeOf(block.is_error)}`);
    let content: string | ContentPart[] = '';
    const partPaths: string[] = [];
    if (typeof block.content === 'string') content = block.content;
    else if (block.content !== undefined && block.content !== null) {
      const parts: ContentPart[] = [];
      blocksOf(block.content, `${at}.content`).forEach((inner, k) => {
        const part = this.userPart(inner, `${at}.content[${k}]`, 'tool_result');
        if (part) {
          parts.push(part);
          partPaths.push(`${at}.content[${k}]`);
        }
      });
      content = compact(parts);
    }
    const message: ChatMessage = { role: 'tool', tool_call_id: toolCallId, content };
    // Anthropic targets get `is_error` back from here (provider-anthropic); others read the content.
    if (block.is_error === true) message.providerMetadata = { anthropic: { isError: true } };
    this.push(message, at, partPaths);
  }

  private assistantTurn(blocks: Json[], path: string, i: number): void {
    let text = '';
    let reasoning = '';
    const toolCalls: ToolCall[] = [];
    const toolCallPaths: string[] = [];
    const signed: Json[] = [];
    blocks.forEach((block, j) => {
      const at = `${path}[${j}]`;
      switch (block.type) {
        case 'text':
          text += requireString(block.text, `${at}.text`);
          return;
        case 'tool_use': {
          const id = requireString(block.id, `${at}.id`);
          const name = requireString(block.name, `${at}.name`);
          if (!isObject(block.input)) throw invalid(`${at}.input`, `must be an object, got ${typeOf(block.input)}`);
          toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(block.input) } });
          toolCallPaths.push(at);
          return;
        }
        case 'thinking': {
          const thinking = requireString(block.thinking, `${at}.thinking`);
          reasoning += thinking;
          if (block.signature !== undefined && block.signature !== null) requireString(block.signature, `${at}.signature`);
          if (typeof block.signature === 'string' && block.signature.length > 0) signed.push({ type: 'thinking', thinking, signature: block.signature });
          else {
            this.unsigned ??= new Map();
            const list = this.unsigned.get(i) ?? [];
            list.push(j);
            this.unsigned.set(i, list);
          }
          return;
        }
        case 'redacted_thinking':
          signed.push({ type: 'redacted_thinking', data: requireString(block.data, `${at}.data`) });
          return;
        default:
          if (ANTHROPIC_ONLY_BLOCKS.has(block.type as string)) return this.foreign(at, `a ${block.type as string} block`);
          if (USER_BLOCKS.has(block.type as string)) throw invalid(`${at}.type`, `a ${block.type as string} block belongs in a user turn`);
          throw invalid(`${at}.type`, `unknown content block type "${block.type as string}" in an assistant turn`);
      }
    });
    const message: ChatMessage = { role: 'assistant', content: text.length > 0 || toolCalls.length === 0 ? text : null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (reasoning) message.reasoning_content = reasoning;
    // Signed thinking travels back to Anthropic the way provider-anthropic keeps it for its own answers.
    if (signed.length > 0) message.providerMetadata = { anthropic: { thinkingBlocks: signed } };
    this.push(message, path.slice(0, -'.content'.length), undefined, toolCallPaths);
  }

  tools(value: unknown): ToolDefinition[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw invalid('tools', `must be an array, got ${typeOf(value)}`);
    const tools: ToolDefinition[] = [];
    value.forEach((tool, i) => {
      const at = `tools[${i}]`;
      if (!isObject(tool)) throw invalid(at, 'must be an object');
      const name = requireString(tool.name, `${at}.name`);
      if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
        // Server tools (web search, code execution) and Anthropic-defined ones (bash, text editor, computer).
        this.foreign(at, `the ${requireString(tool.type, `${at}.type`)} tool "${name}"`);
        return;
      }
      if (!isObject(tool.input_schema)) throw invalid(`${at}.input_schema`, `must be a JSON schema object, got ${typeOf(tool.input_schema)}`);
      if (tool.description !== undefined && tool.description !== null) requireString(tool.description, `${at}.description`);
      this.paths?.tool(tools.length, at);
      const fn: ToolDefinition['function'] = { name, parameters: tool.input_schema };
      if (typeof tool.description === 'string' && tool.description.length > 0) fn.description = tool.description;
      tools.push({ type: 'function', function: fn });
    });
    return tools;
  }
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

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> | undefined {
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
function anthropicBody(body: Json, decoder: MessagesDecoder): Json {
  const unsigned = decoder.unsigned;
  if (body.switchyard === undefined && !unsigned) return body;
  const out: Json = {};
  for (const key in body) if (key !== 'switchyard' && Object.hasOwn(body, key)) out[key] = body[key];
  if (!unsigned) return out;
  const messages = (body.messages as Json[]).slice();
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0 && lastAssistant < 0; i--) if (messages[i]!.role === 'assistant') lastAssistant = i;
  for (const [i, drop] of unsigned) {
    const content = (messages[i]!.content as Json[]).filter((_, j) => !drop.includes(j));
    messages[i] = Object.assign({}, messages[i], { content });
    if (i === lastAssistant) delete out.thinking;
  }
  out.messages = messages;
  return out;
}

/** Decodes a Messages (or count_tokens) body; the unified request carries the client's body as its origin. */
export function decodeMessagesRequest(body: unknown, headers: IncomingHttpHeaders, options: DecodeOptions = {}): DecodedMessages {
  if (!isObject(body)) throw invalid('(body)', 'the request body must be a JSON object');
  const decoder = new MessagesDecoder(options.paths);
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
    if (!Object.hasOwn(body, key) || KNOWN_FIELDS.has(key) || HINT_FIELDS.has(key)) continue;
    decoder.foreign(key, ANTHROPIC_ONLY_FIELDS[key] ?? `the field "${key}"`);
  }

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

  const forwarded = forwardedHeaders(headers);
  setRequestOrigin(request, {
    format: ANTHROPIC_MESSAGES,
    body: anthropicBody(body, decoder),
    ...(forwarded ? { headers: forwarded } : {}),
    ...(decoder.untranslatable.length > 0 ? { untranslatable: decoder.untranslatable } : {}),
  });
  return { request, stream: stream === true };
}
