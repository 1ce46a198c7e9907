/**
 * Every Bedrock model that is not Anthropic's (Llama, Mistral, Nova, DeepSeek…) through the
 * Converse API: the unified request as Converse messages (text, images, tool use and results),
 * `system` blocks, `inferenceConfig` (max tokens, temperature, top p, stop sequences),
 * `toolConfig`, and a `cachePoint` after every part or system prompt that carries Anthropic's
 * `cache_control`. Answers and ConverseStream events come back as unified responses and parts.
 */
import { SwitchyardError, type Candidate, type ChatMessage, type ChatRequest, type ChatResponse, type ContentPart, type DecodedSseEvent, type FinishReason, type ProviderHttpResponse, type ProviderRequest, type StreamDecoder, type StreamPart, type ToolCall, type ToolChoice, type Usage } from '@switchyard/core';
import { modelPath } from './endpoint-url.js';

type Block = Record<string, unknown>;
interface ConverseMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const CACHE_POINT: Block = { cachePoint: { type: 'default' } };
const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

function invalid(message: string, path: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `bedrock converse: ${message}`, { path, status: 400, retryable: false });
}

function cached(part: unknown): boolean {
  return typeof part === 'object' && part !== null && 'cache_control' in part && Boolean((part as { cache_control?: unknown }).cache_control);
}

function imageBlock(part: ContentPart, path: string): Block {
  const url = (part as { image_url?: { url?: string } }).image_url?.url ?? '';
  const m = /^data:image\/([a-z]+);base64,(.*)$/s.exec(url);
  if (!m || !IMAGE_FORMATS.has(m[1] === 'jpg' ? 'jpeg' : m[1]!)) throw invalid('images must be base64 data URLs of png, jpeg, gif or webp (Converse does not fetch URLs)', path);
  return { image: { format: m[1] === 'jpg' ? 'jpeg' : m[1], source: { bytes: m[2] } } };
}

function contentBlocks(content: ChatMessage['content'], path: string): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  const blocks: Block[] = [];
  content.forEach((part, i) => {
    if (part.type === 'text') blocks.push({ text: (part as { text: string }).text });
    else if (part.type === 'image_url') blocks.push(imageBlock(part, `${path}[${i}]`));
    else throw invalid(`a "${part.type}" part has no Converse form`, `${path}[${i}]`);
    if (cached(part)) blocks.push(CACHE_POINT);
  });
  return blocks;
}

function toolUse(call: ToolCall, path: string): Block {
  let input: unknown;
  try {
    input = call.function.arguments ? JSON.parse(call.function.arguments) : {};
  } catch {
    throw invalid('tool call arguments are not JSON', `${path}.function.arguments`);
  }
  return { toolUse: { toolUseId: call.id, name: call.function.name, input } };
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('');
}

export function converseBody(request: ChatRequest): Record<string, unknown> {
  const system: Block[] = [];
  const messages: ConverseMessage[] = [];
  const append = (role: ConverseMessage['role'], blocks: Block[]): void => {
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
        system.push(...contentBlocks(message.content, `${path}.content`));
        break;
      case 'user':
        append('user', contentBlocks(message.content, `${path}.content`));
        break;
      case 'assistant':
        append('assistant', [...contentBlocks(message.content, `${path}.content`), ...(message.tool_calls ?? []).map((c, j) => toolUse(c, `${path}.tool_calls[${j}]`))]);
        break;
      case 'tool':
        append('user', [{ toolResult: { toolUseId: message.tool_call_id, content: [{ text: textOf(message.content) }] } }]);
        break;
    }
  });
  const body: Record<string, unknown> = { messages };
  if (system.length > 0) body.system = system;
  const inference: Record<string, unknown> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (typeof maxTokens === 'number') inference.maxTokens = maxTokens;
  if (typeof request.temperature === 'number') inference.temperature = request.temperature;
  if (typeof request.top_p === 'number') inference.topP = request.top_p;
  const stops = request.stop === undefined || request.stop === null ? [] : Array.isArray(request.stop) ? request.stop : [request.stop];
  if (stops.length > 0) inference.stopSequences = stops;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  const tools = (request.tools ?? []).filter((t) => t.type === 'function');
  if (tools.length > 0 && request.tool_choice !== 'none') {
    const toolConfig: Record<string, unknown> = {
      tools: tools.map((t) => ({ toolSpec: { name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), inputSchema: { json: t.function.parameters ?? { type: 'object', properties: {} } } } })),
    };
    const choice = toolChoiceOf(request.tool_choice);
    if (choice) toolConfig.toolChoice = choice;
    body.toolConfig = toolConfig;
  }
  return body;
}

function toolChoiceOf(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  if (choice === undefined || choice === 'auto') return choice === 'auto' ? { auto: {} } : undefined;
  if (choice === 'required') return { any: {} };
  if (typeof choice === 'object') return { tool: { name: choice.function.name } };
  return undefined;
}

export function buildConverseRequest(request: ChatRequest, target: Candidate, stream: boolean): ProviderRequest {
  return { method: 'POST', path: `${modelPath(target.model)}/${stream ? 'converse-stream' : 'converse'}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(converseBody(request)) };
}

const FINISH: Readonly<Record<string, FinishReason>> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls', guardrail_intervened: 'content_filter', content_filtered: 'content_filter' };

export function finishOf(stopReason: string | undefined): FinishReason {
  return (stopReason && FINISH[stopReason]) || 'other';
}

interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export function usageOf(usage: ConverseUsage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const prompt = (usage.inputTokens ?? 0) + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
  const out: Usage = { prompt_tokens: prompt, completion_tokens: usage.outputTokens ?? 0, total_tokens: prompt + (usage.outputTokens ?? 0) };
  if (usage.cacheReadInputTokens || usage.cacheWriteInputTokens) out.prompt_tokens_details = { cached_tokens: usage.cacheReadInputTokens ?? 0, cache_write_tokens: usage.cacheWriteInputTokens ?? 0 };
  return out;
}

export function parseConverseResponse(response: ProviderHttpResponse, target: Candidate): ChatResponse {
  const body = response.json as { output?: { message?: { content?: Block[] } }; stopReason?: string; usage?: ConverseUsage } | undefined;
  const content = body?.output?.message?.content;
  if (!Array.isArray(content)) throw new SwitchyardError('server', 'bedrock answered Converse without output.message.content', { status: response.status, provider: 'bedrock' });
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const block of content) {
    if (typeof block.text === 'string') text += block.text;
    const use = block.toolUse as { toolUseId?: string; name?: string; input?: unknown } | undefined;
    if (use) toolCalls.push({ id: use.toolUseId ?? `call_${toolCalls.length}`, type: 'function', function: { name: use.name ?? '', arguments: JSON.stringify(use.input ?? {}) } });
    const thought = (block.reasoningContent as { reasoningText?: { text?: string } } | undefined)?.reasoningText?.text;
    if (thought) reasoning += thought;
  }
  const usage = usageOf(body?.usage);
  return {
    id: `bedrock-${Date.now().toString(36)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: target.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(reasoning ? { reasoning_content: reasoning } : {}) }, finish_reason: finishOf(body?.stopReason) }],
    ...(usage ? { usage } : {}),
    providerMetadata: { bedrock: { stopReason: body?.stopReason } },
  };
}

/**
 * ConverseStream events → parts. `messageStop` carries the stop reason and `metadata` the usage
 * after it, so the finish part waits for the usage (or the end of the body).
 */
export class ConverseStreamDecoder implements StreamDecoder {
  done = false;
  private stopReason: string | undefined;
  private finished = false;
  private toolIndex = -1;
  private readonly toolOfBlock = new Map<number, number>();

  push(event: DecodedSseEvent): StreamPart[] {
    const json = event.json as Record<string, any>;
    switch (event.event) {
      case 'contentBlockStart': {
        const use = json.start?.toolUse;
        if (!use) return [];
        this.toolOfBlock.set(json.contentBlockIndex, ++this.toolIndex);
        return [{ type: 'tool-call-delta', index: this.toolIndex, id: use.toolUseId, name: use.name, argumentsDelta: '' }];
      }
      case 'contentBlockDelta': {
        const delta = json.delta ?? {};
        if (typeof delta.text === 'string') return delta.text ? [{ type: 'text-delta', text: delta.text }] : [];
        if (delta.toolUse) return [{ type: 'tool-call-delta', index: this.toolOfBlock.get(json.contentBlockIndex) ?? Math.max(this.toolIndex, 0), argumentsDelta: String(delta.toolUse.input ?? '') }];
        if (typeof delta.reasoningContent?.text === 'string') return [{ type: 'reasoning-delta', text: delta.reasoningContent.text }];
        return [];
      }
      case 'messageStop':
        this.stopReason = json.stopReason;
        return [];
      case 'metadata':
        return this.finish(usageOf(json.usage));
      default:
        return [];
    }
  }

  end(): StreamPart[] {
    return this.finish(undefined);
  }

  private finish(usage: Usage | undefined): StreamPart[] {
    if (this.finished || this.stopReason === undefined) return [];
    this.finished = true;
    this.done = true;
    return [{ type: 'finish', finishReason: finishOf(this.stopReason), rawFinishReason: this.stopReason, ...(usage ? { usage } : {}) }];
  }
}

/** CountTokens with the Converse input (messages and system), on the foundation model. */
export function buildConverseCountTokensRequest(request: ChatRequest, target: Candidate, foundationModel: string): ProviderRequest {
  const { messages, system } = converseBody(request);
  return { method: 'POST', path: `${modelPath(foundationModel)}/count-tokens`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { converse: { messages, ...(system ? { system } : {}) } } }) };
}
