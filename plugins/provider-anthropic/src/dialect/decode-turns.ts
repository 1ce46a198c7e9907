/**
 * The turns of a Messages request (and its system prompt and tools) as unified messages: tool
 * results become tool messages in order, the other user blocks user messages between them;
 * assistant text, tool calls and thinking one assistant message. What is not carried is met in
 * the translation table (translation-table.ts): hints are left out and disclosed, capabilities
 * make other vendors' targets skipped; a block in the wrong turn or of an unknown type is a 400
 * naming it.
 */
import type { ChatMessage, ContentPart, ToolCall, ToolDefinition } from '@switchyard/core';
import { FeatureRecorder } from '@switchyard/core/dialect';
import type { PathRecorder } from './client-paths.js';
import { blocksOf, invalid, isObject, requireString, typeOf, type Json } from './json-checks.js';
import { MESSAGES_TABLE, toolKey } from './translation-table.js';

/** A block the table lists and does not carry (a block of Anthropic's own tools). */
const isUncarriedBlock = (type: unknown) => typeof type === 'string' && Object.hasOwn(MESSAGES_TABLE, `block:${type}`) && MESSAGES_TABLE[`block:${type}`]!.treatment !== 'carried';

const ASSISTANT_BLOCKS = new Set(['tool_use', 'thinking', 'redacted_thinking']);
const USER_BLOCKS = new Set(['image', 'document', 'tool_result']);

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

export class TurnDecoder {
  readonly features = new FeatureRecorder(MESSAGES_TABLE);
  readonly messages: ChatMessage[] = [];
  /** Unsigned thinking blocks found (message index → block indexes): Anthropic gets the body without them. */
  unsigned: Map<number, number[]> | undefined;

  /** `paths` is set only when an error needs the client's paths (the request is decoded again). */
  constructor(private readonly paths: PathRecorder | undefined) {}

  /** What `key` is met at `path`, by the table; `cache_control` on any block is a hint. */
  meet(key: string, path: string, what?: string): void {
    this.features.meet(key, path, what);
  }

  private cacheControl(block: Json, at: string): void {
    if (block.cache_control !== undefined && block.cache_control !== null) this.meet('cache_control', `${at}.cache_control`);
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
      this.cacheControl(block, `system[${j}]`);
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
        if (this.paths) partPaths.push(at);
      }
    });
    flush();
    // A turn of Anthropic-only blocks still counts as a turn (only Anthropic gets it anyway).
    if (this.messages.length === before) this.push({ role: 'user', content: '' }, path.slice(0, -'.content'.length));
  }

  /** A block of user content (or of a tool result) as a unified part; undefined when it has none. */
  private userPart(block: Json, at: string, where: 'user' | 'tool_result'): ContentPart | undefined {
    this.cacheControl(block, at);
    switch (block.type) {
      case 'text':
        return { type: 'text', text: requireString(block.text, `${at}.text`) };
      case 'image':
        return this.image(block, at);
      case 'document':
        return this.document(block, at);
      default:
        if (isUncarriedBlock(block.type)) {
          this.meet(`block:${block.type as string}`, at);
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
      this.meet('source:file', `${at}.source`, 'an image uploaded to the Anthropic Files API');
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
      this.meet('citations', `${at}.citations`);
      return undefined;
    }
    const filename = typeof block.title === 'string' && block.title.length > 0 ? block.title : undefined;
    let fileData: string;
    if (source.type === 'base64') {
      fileData = `data:${requireString(source.media_type, `${at}.source.media_type`)};base64,${requireString(source.data, `${at}.source.data`)}`;
    } else if (source.type === 'text') {
      fileData = `data:text/plain;base64,${Buffer.from(requireString(source.data, `${at}.source.data`), 'utf8').toString('base64')}`;
    } else if (source.type === 'content' || source.type === 'url' || source.type === 'file') {
      this.meet(`source:${source.type}`, `${at}.source`);
      return undefined;
    } else {
      throw invalid(`${at}.source.type`, `must be "base64", "text", "content", "url" or "file", got ${JSON.stringify(source.type) ?? 'nothing'}`);
    }
    return { type: 'file', file: filename ? { file_data: fileData, filename } : { file_data: fileData } };
  }

  private toolResult(block: Json, at: string): void {
    this.cacheControl(block, at);
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
          if (this.paths) partPaths.push(`${at}.content[${k}]`);
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
      this.cacheControl(block, at);
      switch (block.type) {
        case 'text':
          text += requireString(block.text, `${at}.text`);
          return;
        case 'tool_use': {
          const id = requireString(block.id, `${at}.id`);
          const name = requireString(block.name, `${at}.name`);
          if (!isObject(block.input)) throw invalid(`${at}.input`, `must be an object, got ${typeOf(block.input)}`);
          toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(block.input) } });
          if (this.paths) toolCallPaths.push(at);
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
          if (isUncarriedBlock(block.type)) return this.meet(`block:${block.type as string}`, at);
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
      this.cacheControl(tool, at);
      if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
        // Server tools (web search, code execution) and Anthropic-defined ones (bash, text editor, computer).
        const type = requireString(tool.type, `${at}.type`);
        this.meet(toolKey(type), at, `the ${type} tool "${name}"`);
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
