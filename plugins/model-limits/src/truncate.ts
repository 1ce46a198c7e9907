/**
 * Shortening a prompt to a context window: the oldest turns go first. System and developer
 * messages always stay, and so does the last user turn with everything after it (the
 * question being asked, an agent's current tool calls). An assistant message with tool calls
 * and the tool results that answer it leave together, never one without the other, and the
 * kept history never starts with an assistant or tool message.
 */
import type { ChatMessage, ChatRequest, ToolDefinition } from '@switchyard/core';

/** Per message: the role and separators every vendor adds around it. */
const MESSAGE_OVERHEAD_TOKENS = 4;

function contentChars(message: ChatMessage): number {
  let chars = 0;
  const { content } = message;
  if (typeof content === 'string') chars += content.length;
  else if (Array.isArray(content)) {
    for (const part of content) {
      const text = (part as { text?: unknown }).text;
      // Images and files are billed by the vendor's own rules; count them as a short paragraph.
      chars += typeof text === 'string' ? text.length : 1_000;
    }
  }
  for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
  if (typeof message.reasoning_content === 'string') chars += message.reasoning_content.length;
  return chars;
}

/** The same rough estimate the core classifies with (characters / 4), plus per-message overhead and tool definitions. */
export function estimateTokens(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number {
  let tokens = 0;
  for (const m of messages) tokens += Math.ceil(contentChars(m) / 4) + MESSAGE_OVERHEAD_TOKENS;
  if (tools && tools.length > 0) tokens += Math.ceil(JSON.stringify(tools).length / 4);
  return tokens;
}

/** Messages that leave together: one message, or an assistant's tool calls with their results. */
interface Unit {
  start: number;
  end: number; // exclusive
  tokens: number;
}

interface Plan {
  /** Indexes of messages that may never be dropped. */
  pinned: boolean[];
  units: Unit[];
  tokens: number[];
}

function plan(messages: readonly ChatMessage[]): Plan {
  const tokens = messages.map((m) => Math.ceil(contentChars(m) / 4) + MESSAGE_OVERHEAD_TOKENS);
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      lastUser = i;
      break;
    }
  }
  // Without a user turn there is no question to keep the context of: nothing is dropped.
  const tailFrom = lastUser === -1 ? 0 : lastUser;
  const pinned = messages.map((m, i) => i >= tailFrom || m.role === 'system' || m.role === 'developer');
  const units: Unit[] = [];
  let i = 0;
  while (i < tailFrom) {
    if (pinned[i]) {
      i++;
      continue;
    }
    const start = i;
    let sum = tokens[i]!;
    const message = messages[i]!;
    i++;
    if (message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0) {
      const ids = new Set(message.tool_calls!.map((c) => c.id));
      while (i < tailFrom && messages[i]!.role === 'tool' && ids.has(messages[i]!.tool_call_id ?? '')) sum += tokens[i++]!;
    }
    units.push({ start, end: i, tokens: sum });
  }
  return { pinned, units, tokens };
}

export interface Truncation {
  request: ChatRequest;
  droppedMessages: number;
  fromTokens: number;
  toTokens: number;
}

/**
 * The request with its oldest droppable turns removed until the prompt estimate is at most
 * `budget` tokens; undefined when it fits already. `fits: false` when even the pinned
 * messages alone are over the budget (the target cannot take this request).
 */
export function truncateToBudget(request: ChatRequest, budget: number): Truncation | { fits: false; minimumTokens: number } | undefined {
  const toolTokens = request.tools && request.tools.length > 0 ? Math.ceil(JSON.stringify(request.tools).length / 4) : 0;
  const { messages } = request;
  const { pinned, units, tokens } = plan(messages);
  const total = tokens.reduce((a, b) => a + b, 0) + toolTokens;
  if (total <= budget) return undefined;
  const dropped = new Array<boolean>(messages.length).fill(false);
  let current = total;
  for (const unit of units) {
    if (current <= budget) break;
    for (let j = unit.start; j < unit.end; j++) dropped[j] = true;
    current -= unit.tokens;
  }
  // The kept history starts with a user turn: drop assistant and tool messages left at its head.
  for (const unit of units) {
    if (dropped[unit.start]) continue;
    const role = messages[unit.start]!.role;
    if (role !== 'assistant' && role !== 'tool') break;
    for (let j = unit.start; j < unit.end; j++) dropped[j] = true;
    current -= unit.tokens;
  }
  if (current > budget) {
    const minimumTokens = tokens.reduce((sum, t, j) => (pinned[j] ? sum + t : sum), toolTokens);
    return { fits: false, minimumTokens };
  }
  const kept = messages.filter((_, j) => !dropped[j]);
  return { request: { ...request, messages: kept }, droppedMessages: messages.length - kept.length, fromTokens: total, toTokens: current };
}
