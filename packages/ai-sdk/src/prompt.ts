/**
 * AI SDK call options → a Switchyard (OpenAI-shaped) chat request. The V2 and V3 prompt and
 * option shapes agree on everything mapped here, so one converter serves both.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3FilePart, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import type { ChatMessage, ChatRequest, ContentPart, ToolChoice, ToolDefinition } from '@switchyard/core';
import { type SwitchyardRequestOptions } from '@switchyard/core/wire';

/** A setting the pipeline cannot honour, reported back as an AI SDK warning. */
export interface Unsupported { feature: string; details?: string }

export interface ConvertedCall {
  request: ChatRequest;
  unsupported: Unsupported[];
}

function dataUrl(part: LanguageModelV3FilePart): string {
  const { data } = part;
  if (data instanceof URL) return data.href;
  if (typeof data === 'string') return /^(https?|data):/i.test(data) ? data : `data:${part.mediaType};base64,${data}`;
  return `data:${part.mediaType};base64,${Buffer.from(data).toString('base64')}`;
}

function userContent(parts: readonly (LanguageModelV3FilePart | { type: 'text'; text: string })[], unsupported: Unsupported[]): string | ContentPart[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('');
  const content: ContentPart[] = [];
  for (const part of parts) {
    if (part.type === 'text') content.push({ type: 'text', text: part.text });
    else if (part.mediaType.startsWith('image/')) content.push({ type: 'image_url', image_url: { url: dataUrl(part) } });
    else unsupported.push({ feature: `file part (${part.mediaType})`, details: 'only text and images reach the pipeline' });
  }
  return content;
}

function toolResultText(part: LanguageModelV3ToolResultPart): string {
  const output = part.output as { type: string; value?: unknown; reason?: string };
  switch (output.type) {
    case 'text':
    case 'error-text':
      return String(output.value);
    case 'execution-denied':
      return output.reason ?? 'The tool call was denied.';
    default:
      return JSON.stringify(output.value);
  }
}

/** Options a caller may pass as `providerOptions.switchyard`: the pipeline's per-request hints. */
export type SwitchyardProviderOptions = SwitchyardRequestOptions;

export function toChatRequest(model: string, options: LanguageModelV3CallOptions): ConvertedCall {
  const unsupported: Unsupported[] = [];
  const messages: ChatMessage[] = [];
  for (const message of options.prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content, unsupported) });
        break;
      case 'assistant': {
        let text = '';
        const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool-call') toolCalls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input) } });
        }
        messages.push({ role: 'assistant', content: text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) });
        break;
      }
      case 'tool':
        for (const part of message.content) if (part.type === 'tool-result') messages.push({ role: 'tool', tool_call_id: part.toolCallId, content: toolResultText(part) });
        break;
    }
  }
  const request: ChatRequest = { model, messages };
  const tools: ToolDefinition[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type === 'function') tools.push({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema as Record<string, unknown> } });
    else unsupported.push({ feature: `provider tool ${tool.name}`, details: 'provider-defined tools are vendor-specific; a pipeline only runs function tools' });
  }
  if (tools.length) {
    request.tools = tools;
    const choice = options.toolChoice;
    if (choice) request.tool_choice = choice.type === 'tool' ? ({ type: 'function', function: { name: choice.toolName } } satisfies ToolChoice) : choice.type;
  }
  if (options.maxOutputTokens !== undefined) request.max_tokens = options.maxOutputTokens;
  if (options.temperature !== undefined) request.temperature = options.temperature;
  if (options.topP !== undefined) request.top_p = options.topP;
  if (options.stopSequences?.length) request.stop = options.stopSequences;
  if (options.presencePenalty !== undefined) request.presence_penalty = options.presencePenalty;
  if (options.frequencyPenalty !== undefined) request.frequency_penalty = options.frequencyPenalty;
  if (options.seed !== undefined) request.seed = options.seed;
  if (options.topK !== undefined) unsupported.push({ feature: 'topK', details: 'the unified request has no top_k' });
  if (options.responseFormat?.type === 'json') {
    const { schema, name, description } = options.responseFormat;
    request.response_format = schema ? { type: 'json_schema', json_schema: { name: name ?? 'response', schema: schema as Record<string, unknown>, ...(description ? { description } : {}) } } : { type: 'json_object' };
  }
  const hints = options.providerOptions?.switchyard as SwitchyardProviderOptions | undefined;
  if (hints) request.switchyard = hints;
  return { request, unsupported };
}
