/**
 * A Responses API request → the unified ChatRequest (the Chat Completions shape) that routing
 * and vendors of other dialects work on. Wrong types and unknown item or content types are 400s
 * naming the field (`input[2].content[0].type`). Every field, item, part and tool is met in the
 * translation table (translation-table.ts): custom tools, namespaces and `additional_tools` are
 * carried as functions (tool-names.ts); hints (`prompt_cache_key`, `text.verbosity`, hosted web
 * search…) are dropped for other vendors and disclosed; capabilities (other hosted tools, OpenAI
 * file ids, stored prompts, tool items only OpenAI runs) make every vendor that does not speak
 * the Responses API skipped before an attempt (core's expressible.ts).
 */
import { SwitchyardError, type ChatMessage, type ChatRequest, type ContentPart, type ProviderMetadata, type ResponseFormat, type ToolCall, type ToolChoice, type ToolDefinition } from '@switchyard/core';
import { FeatureRecorder, meetField, type RequestFeature } from '@switchyard/core/dialect';
import { customCallArguments, customToolFunction, flatName, type ToolNames } from './tool-names.js';
import { RESPONSES_TABLE, toolKey } from './translation-table.js';
import { mergeMetadata, vendorStateOf } from './vendor-state.js';
import type { Json, ResponseItem } from './wire-types.js';

/** Where an item came from, for error paths: the client's `input`, or the stored conversation. */
export interface SourcedItem {
  item: ResponseItem;
  /** `input[3]`, or `previous_response_id` for an item of the stored conversation. */
  path: string;
}

export interface DecodedRequest {
  request: ChatRequest;
  /** What a vendor of another API does without (dropped, disclosed) and what only a Responses API vendor can do (translation-table.ts). */
  hints: RequestFeature[];
  capabilities: RequestFeature[];
  /** Unified function names standing for custom and namespaced tools (tool-names.ts). */
  toolNames: ToolNames;
}

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const IMAGE_DETAILS = new Set(['auto', 'low', 'high']);

export function invalid(path: string, message: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `${path}: ${message}`, { path, status: 400 });
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isAbsent = (value: unknown) => value === undefined || value === null;

function stringField(source: Json, field: string, path: string, required = true): string | undefined {
  const value = source[field];
  if (typeof value === 'string') return value;
  if (!required && isAbsent(value)) return undefined;
  throw invalid(`${path}.${field}`, required && isAbsent(value) ? 'is required and must be a string' : 'must be a string');
}

function optionalNumber(body: Json, field: string): number | undefined {
  const value = body[field];
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(field, 'must be a number');
  return value;
}

function optionalBoolean(body: Json, field: string): boolean | undefined {
  const value = body[field];
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'boolean') throw invalid(field, 'must be a boolean');
  return value;
}

/** `input` as items: a string is one user message. */
export function inputItems(body: Json): ResponseItem[] {
  const input = body.input;
  if (isAbsent(input)) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (!Array.isArray(input)) throw invalid('input', 'must be a string or an array of items');
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as unknown;
    if (!isObject(item)) throw invalid(`input[${i}]`, 'must be an object');
    if (item.type !== undefined && typeof item.type !== 'string') throw invalid(`input[${i}].type`, 'must be a string');
  }
  return input as ResponseItem[];
}

/** Builds unified messages from items, merging an assistant turn's text, calls and reasoning into one message. */
class ConversationBuilder {
  readonly messages: ChatMessage[] = [];
  readonly features = new FeatureRecorder(RESPONSES_TABLE);
  /** Tools offered by `additional_tools` items, with their paths. */
  readonly offered: { tool: unknown; path: string }[] = [];
  private pendingReasoning: string | undefined;
  /** Vendor state read before the assistant message of its turn (vendor-state.ts). */
  private pendingState: ProviderMetadata | undefined;

  add({ item, path }: SourcedItem): void {
    const type = item.type ?? 'message';
    switch (type) {
      case 'message':
        return this.message(item, path);
      case 'function_call':
        return this.functionCall(item, path);
      case 'function_call_output':
        return this.functionCallOutput(item, path);
      case 'reasoning':
        return this.reasoning(item, path);
      case 'custom_tool_call':
        return this.customToolCall(item, path);
      case 'custom_tool_call_output':
        return this.functionCallOutput(item, path);
      case 'additional_tools':
        return this.additionalTools(item, path);
      default:
        if (!Object.hasOwn(RESPONSES_TABLE, `item:${type}`)) throw invalid(`${path}.type`, `unknown item type "${type}"`);
        this.meet(`item:${type}`, path);
    }
  }

  meet(key: string, path: string, what?: string): void {
    this.features.meet(key, path, what);
  }

  private additionalTools(item: ResponseItem, path: string): void {
    this.meet('item:additional_tools', path);
    if (!Array.isArray(item.tools)) throw invalid(`${path}.tools`, 'must be an array of tools');
    item.tools.forEach((tool, i) => this.offered.push({ tool, path: `${path}.tools[${i}]` }));
  }

  private customToolCall(item: ResponseItem, path: string): void {
    const namespace = stringField(item, 'namespace', path, false);
    this.addCall({ id: stringField(item, 'call_id', path)!, type: 'function', function: { name: flatName(namespace, stringField(item, 'name', path)!), arguments: customCallArguments(stringField(item, 'input', path)!) } });
  }

  private message(item: ResponseItem, path: string): void {
    const role = item.role;
    if (typeof role !== 'string' || !MESSAGE_ROLES.has(role)) throw invalid(`${path}.role`, `must be one of ${[...MESSAGE_ROLES].join(', ')}`);
    const content = item.content;
    if (typeof content !== 'string' && !Array.isArray(content)) throw invalid(`${path}.content`, 'must be a string or an array of content parts');
    if (role !== 'assistant') {
      this.messages.push({ role: role as ChatMessage['role'], content: typeof content === 'string' ? content : this.parts(content, `${path}.content`) });
      return;
    }
    this.messages.push(this.assistant(typeof content === 'string' ? content : this.assistantText(content, `${path}.content`)));
  }

  /** A new assistant message; the reasoning items just before it become its reasoning. */
  private assistant(content: string | null): ChatMessage {
    const message: ChatMessage = { role: 'assistant', content };
    if (this.pendingReasoning !== undefined) {
      message.reasoning_content = this.pendingReasoning;
      this.pendingReasoning = undefined;
    }
    if (this.pendingState !== undefined) {
      message.providerMetadata = this.pendingState;
      this.pendingState = undefined;
    }
    return message;
  }

  /** The assistant message of the turn being read (the last message, when it is the assistant's). */
  private currentTurn(): ChatMessage | undefined {
    const last = this.messages[this.messages.length - 1];
    return last?.role === 'assistant' ? last : undefined;
  }

  private functionCall(item: ResponseItem, path: string): void {
    const namespace = stringField(item, 'namespace', path, false);
    this.addCall({
      id: stringField(item, 'call_id', path)!,
      type: 'function',
      function: { name: flatName(namespace, stringField(item, 'name', path)!), arguments: stringField(item, 'arguments', path)! },
    });
  }

  private addCall(call: ToolCall): void {
    const last = this.currentTurn();
    if (last && this.pendingReasoning === undefined) (last.tool_calls ??= []).push(call);
    else {
      const message = this.assistant(null);
      message.tool_calls = [call];
      this.messages.push(message);
    }
  }

  private functionCallOutput(item: ResponseItem, path: string): void {
    const callId = stringField(item, 'call_id', path)!;
    const output = item.output;
    let content: string;
    if (typeof output === 'string') content = output;
    else if (Array.isArray(output)) {
      const parts = this.parts(output, `${path}.output`);
      // A tool message carries text only in the unified (Chat Completions) shape.
      if (parts.some((p) => p.type !== 'text')) this.meet('part:tool_output_media', `${path}.output`);
      content = parts.map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('');
    } else throw invalid(`${path}.output`, 'must be a string or an array of content parts');
    this.messages.push({ role: 'tool', tool_call_id: callId, content });
  }

  private reasoning(item: ResponseItem, path: string): void {
    const state = vendorStateOf(item);
    if (state) {
      // The state item ends its turn; one that comes first waits for the turn's message.
      const turn = this.currentTurn();
      if (turn) turn.providerMetadata = mergeMetadata(turn.providerMetadata, state);
      else this.pendingState = mergeMetadata(this.pendingState, state);
      return;
    }
    const texts: string[] = [];
    // The model's own reasoning text when the vendor sent it, else its summary.
    const source = Array.isArray(item.content) && item.content.length > 0 ? 'content' : 'summary';
    const list = item[source];
    if (!isAbsent(list)) {
      if (!Array.isArray(list)) throw invalid(`${path}.${source}`, 'must be an array');
      list.forEach((entry, i) => {
        if (!isObject(entry)) throw invalid(`${path}.${source}[${i}]`, 'must be an object');
        texts.push(stringField(entry, 'text', `${path}.${source}[${i}]`)!);
      });
    }
    const text = texts.join('\n\n');
    if (text) this.pendingReasoning = this.pendingReasoning === undefined ? text : `${this.pendingReasoning}\n\n${text}`;
  }

  /** User, system and tool-output content parts → unified parts. */
  private parts(list: unknown[], path: string): ContentPart[] {
    const out: ContentPart[] = [];
    for (let j = 0; j < list.length; j++) {
      const part = list[j];
      const at = `${path}[${j}]`;
      if (!isObject(part)) throw invalid(at, 'must be an object');
      const type = part.type;
      if (typeof type !== 'string') throw invalid(`${at}.type`, 'is required and must be a string');
      switch (type) {
        case 'input_text':
        case 'output_text':
          out.push({ type: 'text', text: stringField(part, 'text', at)! });
          break;
        case 'input_image': {
          const url = stringField(part, 'image_url', at, false);
          const detail = part.detail;
          if (!isAbsent(detail) && typeof detail !== 'string') throw invalid(`${at}.detail`, 'must be a string');
          if (url !== undefined) {
            const image: { url: string; detail?: 'auto' | 'low' | 'high' } = { url };
            if (typeof detail === 'string' && IMAGE_DETAILS.has(detail)) image.detail = detail as 'auto' | 'low' | 'high';
            out.push({ type: 'image_url', image_url: image });
          } else if (typeof part.file_id === 'string') this.meet('source:file_id', at, 'an image given by OpenAI file id');
          else throw invalid(`${at}.image_url`, 'an input_image needs an image_url (or an OpenAI file_id)');
          break;
        }
        case 'input_file': {
          const data = stringField(part, 'file_data', at, false);
          const filename = stringField(part, 'filename', at, false);
          if (data !== undefined) out.push({ type: 'file', file: filename === undefined ? { file_data: data } : { file_data: data, filename } });
          else if (typeof part.file_id === 'string' || typeof part.file_url === 'string') this.meet(typeof part.file_id === 'string' ? 'source:file_id' : 'source:file_url', at);
          else throw invalid(`${at}.file_data`, 'an input_file needs file_data (or an OpenAI file_id or file_url)');
          break;
        }
        case 'input_audio':
          this.meet('part:input_audio', at);
          break;
        default:
          throw invalid(`${at}.type`, `unknown content type "${type}"`);
      }
    }
    return out;
  }

  /** An assistant message's content (output_text and refusal parts) as its text. */
  private assistantText(list: unknown[], path: string): string {
    let text = '';
    for (let j = 0; j < list.length; j++) {
      const part = list[j];
      const at = `${path}[${j}]`;
      if (!isObject(part)) throw invalid(at, 'must be an object');
      if (part.type === 'output_text' || part.type === 'input_text') text += stringField(part, 'text', at)!;
      else if (part.type === 'refusal') text += stringField(part, 'refusal', at)!;
      else if (typeof part.type !== 'string') throw invalid(`${at}.type`, 'is required and must be a string');
      else throw invalid(`${at}.type`, `unknown content type "${part.type}" in an assistant message`);
    }
    return text;
  }
}

/** One offered tool (of `tools`, or of an `additional_tools` item) as unified functions, by the table. */
function decodeTool(tool: unknown, path: string, builder: ConversationBuilder, names: ToolNames, out: ToolDefinition[], namespace?: string): void {
  if (!isObject(tool)) throw invalid(path, 'must be an object');
  if (typeof tool.type !== 'string') throw invalid(`${path}.type`, 'is required and must be a string');
  const key = toolKey(tool.type);
  if (tool.type === 'namespace' && namespace === undefined) {
    const name = stringField(tool, 'name', path)!;
    if (!Array.isArray(tool.tools)) throw invalid(`${path}.tools`, 'must be an array of tools');
    tool.tools.forEach((inner: unknown, i) => decodeTool(inner, `${path}.tools[${i}]`, builder, names, out, name));
    return;
  }
  if (tool.type === 'custom') {
    const name = stringField(tool, 'name', path)!;
    const flat = flatName(namespace, name);
    names.set(flat, namespace ? { kind: 'custom', name, namespace } : { kind: 'custom', name });
    out.push(customToolFunction(tool, flat));
    return;
  }
  if (tool.type !== 'function') {
    if (!Object.hasOwn(RESPONSES_TABLE, key)) return builder.meet(key, path, `a ${tool.type} tool`);
    return builder.meet(key, path);
  }
  const name = stringField(tool, 'name', path)!;
  const flat = flatName(namespace, name);
  if (namespace) names.set(flat, { kind: 'function', name, namespace });
  const fn: ToolDefinition['function'] = { name: flat };
  const description = stringField(tool, 'description', path, false);
  if (description !== undefined) fn.description = description;
  if (!isAbsent(tool.parameters)) {
    if (!isObject(tool.parameters)) throw invalid(`${path}.parameters`, 'must be a JSON schema object');
    fn.parameters = tool.parameters;
  }
  if (!isAbsent(tool.strict)) {
    if (typeof tool.strict !== 'boolean') throw invalid(`${path}.strict`, 'must be a boolean');
    fn.strict = tool.strict;
  }
  out.push({ type: 'function', function: fn });
}

function decodeTools(body: Json, builder: ConversationBuilder, names: ToolNames): ToolDefinition[] | undefined {
  const tools = body.tools;
  if (!isAbsent(tools) && !Array.isArray(tools)) throw invalid('tools', 'must be an array');
  if ((!Array.isArray(tools) || tools.length === 0) && builder.offered.length === 0) return undefined;
  const out: ToolDefinition[] = [];
  if (Array.isArray(tools)) tools.forEach((tool: unknown, i) => decodeTool(tool, `tools[${i}]`, builder, names, out));
  for (const { tool, path } of builder.offered) decodeTool(tool, path, builder, names, out);
  return out;
}

function decodeToolChoice(value: unknown, builder: ConversationBuilder): ToolChoice | undefined {
  if (isAbsent(value)) return undefined;
  if (value === 'none' || value === 'auto' || value === 'required') return value;
  if (typeof value === 'string') throw invalid('tool_choice', 'must be "none", "auto", "required" or an object');
  if (!isObject(value) || typeof value.type !== 'string') throw invalid('tool_choice.type', 'is required and must be a string');
  if (value.type === 'function' || value.type === 'custom') {
    const namespace = stringField(value, 'namespace', 'tool_choice', false);
    return { type: 'function', function: { name: flatName(namespace, stringField(value, 'name', 'tool_choice')!) } };
  }
  builder.meet('tool_choice:hosted', 'tool_choice', `a tool_choice of type ${value.type}`);
  return undefined;
}

function decodeFormat(text: unknown): ResponseFormat | undefined {
  if (isAbsent(text)) return undefined;
  if (!isObject(text)) throw invalid('text', 'must be an object');
  const format = text.format;
  if (isAbsent(format)) return undefined;
  if (!isObject(format)) throw invalid('text.format', 'must be an object');
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const schema = format.schema;
      if (!isObject(schema)) throw invalid('text.format.schema', 'is required and must be a JSON schema object');
      const spec: { name: string; schema?: Record<string, unknown>; strict?: boolean; description?: string } = { name: stringField(format, 'name', 'text.format')!, schema };
      if (!isAbsent(format.strict)) {
        if (typeof format.strict !== 'boolean') throw invalid('text.format.strict', 'must be a boolean');
        spec.strict = format.strict;
      }
      const description = stringField(format, 'description', 'text.format', false);
      if (description !== undefined) spec.description = description;
      return { type: 'json_schema', json_schema: spec };
    }
    default:
      throw invalid('text.format.type', 'must be "text", "json_object" or "json_schema"');
  }
}

function decodeMetadata(value: unknown): Record<string, string> | undefined {
  if (isAbsent(value)) return undefined;
  if (!isObject(value)) throw invalid('metadata', 'must be an object of strings');
  for (const key in value) if (typeof value[key] !== 'string') throw invalid(`metadata.${key}`, 'must be a string');
  return value as Record<string, string>;
}

/**
 * The unified request for a Responses body and its conversation (the stored one, if any, then
 * the client's `input`). The caller keeps the client's body as the request's origin.
 */
export function decodeRequest(body: Json, conversation: readonly SourcedItem[]): DecodedRequest {
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('model', 'is required and must be a non-empty string');
  if (body.background === true) throw invalid('background', 'background responses are not supported by the gateway (it answers while the client waits)');
  const builder = new ConversationBuilder();
  for (const key in body) if (Object.hasOwn(body, key)) meetField(builder, key, RESPONSES_TABLE);
  const instructions = body.instructions;
  if (!isAbsent(instructions) && typeof instructions !== 'string') throw invalid('instructions', 'must be a string');
  if (typeof instructions === 'string' && instructions.length > 0) builder.messages.push({ role: 'system', content: instructions });
  for (const sourced of conversation) builder.add(sourced);
  if (!builder.messages.some((m) => m.role !== 'system' && m.role !== 'developer')) {
    if (builder.features.capabilities.length === 0) throw invalid('input', 'is required: a string or a non-empty array of items');
    // A stored prompt or a conversation may hold the whole input: only OpenAI can take such a
    // request, and the unified request routing reads still needs a turn.
    builder.messages.push({ role: 'user', content: '' });
  }

  const request: ChatRequest = { model: body.model, messages: builder.messages };
  const toolNames: ToolNames = new Map();
  const tools = decodeTools(body, builder, toolNames);
  if (tools && tools.length > 0) request.tools = tools;
  const toolChoice = decodeToolChoice(body.tool_choice, builder);
  if (toolChoice !== undefined) request.tool_choice = toolChoice;
  const parallel = optionalBoolean(body, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallel_tool_calls = parallel;
  if (!isAbsent(body.reasoning)) {
    if (!isObject(body.reasoning)) throw invalid('reasoning', 'must be an object');
    const effort = stringField(body.reasoning, 'effort', 'reasoning', false);
    if (effort !== undefined) request.reasoning_effort = effort;
    if (!isAbsent(body.reasoning.summary)) builder.meet('reasoning.summary', 'reasoning.summary');
  }
  if (isObject(body.text) && !isAbsent(body.text.verbosity)) builder.meet('text.verbosity', 'text.verbosity');
  const maxTokens = optionalNumber(body, 'max_output_tokens');
  if (maxTokens !== undefined) {
    if (!Number.isInteger(maxTokens) || maxTokens < 1) throw invalid('max_output_tokens', 'must be a positive integer');
    request.max_completion_tokens = maxTokens;
  }
  const temperature = optionalNumber(body, 'temperature');
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(body, 'top_p');
  if (topP !== undefined) request.top_p = topP;
  const format = decodeFormat(body.text);
  if (format) request.response_format = format;
  const metadata = decodeMetadata(body.metadata);
  if (metadata) request.metadata = metadata;
  const user = body.user;
  if (!isAbsent(user)) {
    if (typeof user !== 'string') throw invalid('user', 'must be a string');
    request.user = user;
  }
  const stream = optionalBoolean(body, 'stream');
  if (stream) request.stream = true;
  const hints = body.switchyard;
  if (hints !== undefined) request.switchyard = hints as ChatRequest['switchyard'];
  const { capabilities, hints: dropped } = builder.features;
  if (capabilities.length > 0 || dropped.length > 0) {
    // The unified request leaves those parts out, so two requests that differ only in them
    // would share a cache entry: such requests skip the response cache.
    request.switchyard = Object.assign({}, isObject(hints) ? hints : undefined, { cache: false });
  }
  return { request, hints: dropped, capabilities, toolNames };
}
