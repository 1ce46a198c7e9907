/**
 * A unified answer as a Messages API `message` (for answers that did not come from Anthropic
 * as a Message already: those are sent as the vendor wrote them).
 */
import type { ChatResponse } from '@switchyard/core';
import { messageId, messagesUsage, stopReasonOf, toolInput, toolUseId } from '../mapping.js';

type Block = Record<string, unknown>;

function signedThinking(value: unknown): Block[] | undefined {
  return Array.isArray(value) && value.length > 0 ? (value as Block[]) : undefined;
}

export function messageBody(response: ChatResponse): Record<string, unknown> {
  const choice = response.choices[0];
  const message = choice?.message;
  const anthropic = response.providerMetadata?.anthropic;
  const content: Block[] = [];
  // Anthropic's own thinking keeps its signatures; other vendors' reasoning has none to keep.
  const signed = signedThinking(message?.providerMetadata?.anthropic?.thinkingBlocks);
  if (signed) content.push(...signed);
  else if (message?.reasoning_content) content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  if (message?.content) content.push({ type: 'text', text: message.content });
  for (const call of message?.tool_calls ?? []) content.push({ type: 'tool_use', id: toolUseId(call.id), name: call.function.name, input: toolInput(call.function.arguments) });
  return {
    id: messageId(response.id),
    type: 'message',
    role: 'assistant',
    model: response.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason, anthropic?.stopReason),
    stop_sequence: typeof anthropic?.stopSequence === 'string' ? anthropic.stopSequence : null,
    usage: messagesUsage(response.usage),
  };
}
