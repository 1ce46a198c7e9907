/** Anthropic Message object → unified chat completion. */
import { SwitchyardError, type ChatResponse, type ProviderHttpResponse, type ResponseMessage, type ToolCall } from '@switchyard/core';
import { finishReasonOf, toUnifiedUsage } from './mapping.js';
import { PROVIDER_KEY } from './thinking.js';
import type { MessagesResponseBody, SignedThinking } from './wire-types.js';

/** Vendor details a caller may want: the raw stop reason and Anthropic's refusal explanation. */
export function stopMetadata(body: Pick<MessagesResponseBody, 'stop_reason' | 'stop_sequence' | 'stop_details'>): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (body.stop_reason) meta.stopReason = body.stop_reason;
  if (body.stop_sequence) meta.stopSequence = body.stop_sequence;
  if (body.stop_details) meta.stopDetails = body.stop_details;
  return meta;
}

/** A Message as Anthropic writes it, fit to reach a Messages client as it came. */
export function forwardable(json: unknown): boolean {
  const body = json as MessagesResponseBody & { type?: unknown; role?: unknown };
  return typeof body === 'object' && body !== null && body.type === 'message' && body.role === 'assistant' && typeof body.id === 'string' && Array.isArray(body.content) && typeof body.usage === 'object' && body.usage !== null;
}

export function parseMessagesResponse(response: ProviderHttpResponse): ChatResponse {
  const body = response.json as MessagesResponseBody;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.content)) {
    throw new SwitchyardError('server', 'anthropic answered 200 with a body that is not a Message', { status: response.status });
  }
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  const thinking: SignedThinking[] = [];
  for (const block of body.content) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id ?? '', type: 'function', function: { name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      reasoning += block.thinking;
      thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' });
    } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      thinking.push({ type: 'redacted_thinking', data: block.data });
    }
  }
  const message: ResponseMessage = { role: 'assistant', content: text.length > 0 || toolCalls.length === 0 ? text : null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning) message.reasoning_content = reasoning;
  if (thinking.length > 0) message.providerMetadata = { [PROVIDER_KEY]: { thinkingBlocks: thinking } };
  const explanation = body.stop_reason === 'refusal' ? body.stop_details?.explanation : undefined;
  if (typeof explanation === 'string') message.refusal = explanation;

  const chat: ChatResponse = {
    id: body.id ?? '',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? '',
    choices: [{ index: 0, message, finish_reason: finishReasonOf(body.stop_reason) }],
  };
  const usage = toUnifiedUsage(body.usage);
  if (usage) chat.usage = usage;
  const meta = { ...stopMetadata(body), ...(thinking.length > 0 ? { thinkingBlocks: thinking } : {}) };
  if (Object.keys(meta).length > 0) chat.providerMetadata = { [PROVIDER_KEY]: meta };
  return chat;
}
