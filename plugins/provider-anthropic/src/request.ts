/**
 * Unified (OpenAI-shaped) request → Anthropic Messages request body. Anthropic keeps the
 * system prompt outside the turns, wants tool results as user turns, needs strictly
 * alternating roles and requires `max_tokens`.
 */
import { SwitchyardError, type Candidate, type ChatMessage, type ChatRequest, type ToolChoice, type ToolDefinition } from '@switchyard/core';
import { base64DataUrl, documentBlock, inlineFileOf } from './documents.js';
import { PROVIDER_KEY, thinkingBlocksOf } from './thinking.js';
import type { AnthropicMessage, AnthropicTool, AnthropicToolChoice, DocumentBlock, ImageBlock, MessagesRequestBody, RequestBlock, ToolResultBlock, UserMediaBlock } from './wire-types.js';

export const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_MAX_TOKENS = 4096;
/** Anthropic's smallest accepted thinking budget. */
const MIN_THINKING_BUDGET = 1024;
const THINKING_BUDGETS: Readonly<Record<string, number>> = { low: 1024, medium: 4096, high: 16384 };

function invalid(message: string, path: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `anthropic: ${message}`, { path, status: 400, retryable: false });
}

/**
 * The version header, the key, and the client's own `anthropic-version` / `anthropic-beta` when
 * its request is sent on as it wrote it (its body is in the version it named).
 */
export function requestHeaders(target: Candidate, clientHeaders?: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = { 'anthropic-version': clientHeaders?.['anthropic-version'] ?? target.endpoint.apiVersion ?? ANTHROPIC_VERSION };
  const beta = clientHeaders?.['anthropic-beta'];
  if (beta) headers['anthropic-beta'] = beta;
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  return headers;
}

export function buildMessagesBody(request: ChatRequest, target: Candidate, stream: boolean): MessagesRequestBody {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const append = (role: AnthropicMessage['role'], blocks: RequestBlock[]): void => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  request.messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(plainText(message.content, `${path}.content`));
        break;
      case 'user':
        append('user', contentBlocks(message.content, `${path}.content`));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, path));
        break;
      case 'tool':
        append('user', [toolResult(message, path)]);
        break;
    }
  });
  trimPrefill(messages);
  const formatHint = responseFormatHint(request);
  if (formatHint) system.push(formatHint);

  const requested = request.max_completion_tokens ?? request.max_tokens;
  const thinking = thinkingFor(request.reasoning_effort, requested);
  const body: MessagesRequestBody = {
    model: target.model,
    max_tokens: requested ?? (thinking ? thinking.budget_tokens + DEFAULT_MAX_TOKENS : defaultMaxTokens(target)),
    ...(system.some((s) => s.length > 0) ? { system: system.filter((s) => s.length > 0).join('\n\n') } : {}),
    messages,
  };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map(toolOf);
    const choice = toolChoiceOf(request.tool_choice, request.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  // Anthropic rejects sampling overrides while extended thinking is on.
  if (!thinking && typeof request.temperature === 'number') body.temperature = request.temperature;
  if (!thinking && typeof request.top_p === 'number') body.top_p = request.top_p;
  const stops = request.stop === undefined || request.stop === null ? [] : Array.isArray(request.stop) ? request.stop : [request.stop];
  if (stops.length > 0) body.stop_sequences = stops;
  if (typeof request.user === 'string' && request.user) body.metadata = { user_id: request.user };
  if (thinking) body.thinking = thinking;
  if (stream) body.stream = true;
  return body;
}

function defaultMaxTokens(target: Candidate): number {
  const configured = target.endpoint.options?.maxTokens;
  return typeof configured === 'number' && configured > 0 ? configured : DEFAULT_MAX_TOKENS;
}

function thinkingFor(effort: string | undefined, maxTokens: number | undefined): MessagesRequestBody['thinking'] {
  const wanted = effort ? THINKING_BUDGETS[effort] : undefined;
  if (wanted === undefined) return undefined;
  // With a caller-set limit, thinking may use at most half of it; too small a limit means no thinking.
  const budget = maxTokens === undefined ? wanted : Math.min(wanted, Math.floor(maxTokens / 2));
  return budget >= MIN_THINKING_BUDGET ? { type: 'enabled', budget_tokens: budget } : undefined;
}

function plainText(content: ChatMessage['content'], path: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (part.type !== 'text' || typeof part.text !== 'string') throw invalid(`only text parts are allowed here, got "${part.type}"`, `${path}[${j}]`);
      return part.text;
    })
    .join('\n');
}

function contentBlocks(content: ChatMessage['content'], path: string): UserMediaBlock[] {
  if (content === undefined || content === null) return [];
  // Anthropic rejects empty text blocks.
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  const blocks: UserMediaBlock[] = [];
  content.forEach((part, j) => {
    if (part.type === 'text' && typeof part.text === 'string') {
      if (part.text.length > 0) blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') {
      const url = (part.image_url as { url?: unknown } | undefined)?.url;
      blocks.push(imageBlock(url, `${path}[${j}].image_url.url`));
    } else if (part.type === 'file') {
      const file = inlineFileOf(part);
      if (!file) throw invalid('a file part needs its data inline: file.file_data as a base64 data: URL', `${path}[${j}].file`);
      blocks.push(documentBlock(file));
    } else {
      throw invalid(`content part type "${part.type}" is not supported`, `${path}[${j}]`);
    }
  });
  return blocks;
}

function imageBlock(url: unknown, path: string): ImageBlock | DocumentBlock {
  if (typeof url !== 'string') throw invalid('image_url.url must be a string', path);
  if (url.startsWith('data:')) {
    const data = base64DataUrl(url);
    if (!data) throw invalid('a data URL image must be base64-encoded (data:<type>;base64,...)', path);
    // A PDF sent as an image (an OpenAI-client habit) is a document to Anthropic.
    if (data.mediaType === 'application/pdf') return documentBlock(data);
    return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.base64 } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid('image_url.url must be an http(s) URL or a base64 data URL', path);
}

function assistantBlocks(message: ChatMessage, path: string): RequestBlock[] {
  const blocks: RequestBlock[] = [...thinkingBlocksOf(message.providerMetadata)];
  blocks.push(...contentBlocks(message.content, `${path}.content`));
  message.tool_calls?.forEach((call, k) => {
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments, `${path}.tool_calls[${k}].function.arguments`) });
  });
  return blocks;
}

function toolInput(args: string | undefined, path: string): Record<string, unknown> {
  if (args === undefined || args.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw invalid('tool call arguments are not valid JSON', path);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('tool call arguments must be a JSON object', path);
  return parsed as Record<string, unknown>;
}

function toolResult(message: ChatMessage, path: string): ToolResultBlock {
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: message.tool_call_id ?? '' };
  const content = typeof message.content === 'string' ? message.content : contentBlocks(message.content, `${path}.content`);
  if (content.length > 0) block.content = content;
  // The Messages ingress keeps a failed tool's flag here; no other unified field carries it.
  if (message.providerMetadata?.[PROVIDER_KEY]?.isError === true) block.is_error = true;
  return block;
}

/** Anthropic rejects a final assistant turn (a prefill) that ends in whitespace. */
function trimPrefill(messages: AnthropicMessage[]): void {
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant') return;
  const block = last.content[last.content.length - 1];
  if (block?.type !== 'text') return;
  block.text = block.text.trimEnd();
  if (block.text.length === 0) last.content.pop();
  if (last.content.length === 0) messages.pop();
}

function toolOf(tool: ToolDefinition): AnthropicTool {
  const { name, description, parameters } = tool.function;
  const hasSchema = parameters !== undefined && Object.keys(parameters).length > 0;
  return { name, ...(description ? { description } : {}), input_schema: hasSchema ? parameters : { type: 'object', properties: {} } };
}

function toolChoiceOf(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  let out: AnthropicToolChoice | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (typeof choice === 'object' && choice !== null) out = { type: 'tool', name: choice.function.name };
  if (parallel === false) {
    out ??= { type: 'auto' };
    if (out.type !== 'none') out.disable_parallel_tool_use = true;
  }
  return out;
}

/** Anthropic has no JSON mode in this API version: the nearest equivalent is an instruction. */
function responseFormatHint(request: ChatRequest): string | undefined {
  const format = request.response_format;
  if (format?.type === 'json_object') return 'Respond with a single JSON object and nothing else.';
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema ? ` matching this JSON schema: ${JSON.stringify(format.json_schema.schema)}` : '';
    return `Respond with a single JSON object${schema} and nothing else.`;
  }
  return undefined;
}
