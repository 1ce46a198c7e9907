import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '@switchyard/core';
import { estimateTokens, truncateToBudget } from '../src/index.js';

const words = (n: number, tag: string) => `${tag} ${'word '.repeat(n)}`.trim();
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

/** A system prompt, then `turns` user/assistant exchanges of about 100 tokens each, then the question. */
function conversation(turns: number): ChatRequest {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (let i = 0; i < turns; i++) messages.push(user(words(40, `q${i}`)), assistant(words(40, `a${i}`)));
  messages.push(user('And the final question?'));
  return { model: 'chat', messages };
}

const contents = (r: ChatRequest) => r.messages.map((m) => (typeof m.content === 'string' ? m.content.split(' ')[0] : m.role));

describe('truncateToBudget', () => {
  it('leaves a request that fits alone', () => {
    const request = conversation(2);
    expect(truncateToBudget(request, estimateTokens(request.messages))).toBeUndefined();
  });

  it('drops the oldest turns first, never the system prompt or the last user turn', () => {
    const request = conversation(10);
    const total = estimateTokens(request.messages);
    const result = truncateToBudget(request, Math.floor(total / 2));
    expect(result && 'request' in result).toBe(true);
    if (!result || !('request' in result)) return;
    const kept = contents(result.request);
    expect(kept[0]).toBe('You');
    expect(kept.at(-1)).toBe('And');
    // A contiguous, most recent stretch of the history, starting with a user turn.
    expect(kept[1]).toMatch(/^q\d$/);
    const first = Number(kept[1]!.slice(1));
    expect(kept.slice(1, -1)).toEqual(Array.from({ length: 10 - first }, (_, i) => [`q${first + i}`, `a${first + i}`]).flat());
    expect(result.droppedMessages).toBe(2 * first);
    expect(result.fromTokens).toBe(total);
    expect(result.toTokens).toBeLessThanOrEqual(Math.floor(total / 2));
    expect(result.toTokens).toBe(estimateTokens(result.request.messages));
    // The caller's request is untouched.
    expect(request.messages).toHaveLength(22);
  });

  it('keeps an assistant tool call and its results together, and never starts the history with them', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      user(words(60, 'old')),
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: words(60, 'args') }) } }, { id: 'c2', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: words(60, 'result1') },
      { role: 'tool', tool_call_id: 'c2', content: words(60, 'result2') },
      assistant(words(20, 'summary')),
      user(words(20, 'recent')),
      assistant(words(20, 'reply')),
      user('now?'),
    ];
    const request: ChatRequest = { model: 'chat', messages };
    const total = estimateTokens(messages);
    // Just enough to force the first user turn out: the tool exchange after it must leave with it.
    const result = truncateToBudget(request, total - 10);
    if (!result || !('request' in result)) throw new Error('expected a truncation');
    expect(result.request.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(contents(result.request)).toEqual(['sys', 'recent', 'reply', 'now?']);
    expect(result.droppedMessages).toBe(5);
    expect(result.request.messages.some((m) => m.role === 'tool')).toBe(false);
  });

  it('keeps an agent turn after the last user message whole (its tool calls and results)', () => {
    const messages: ChatMessage[] = [
      user(words(100, 'old')),
      assistant(words(100, 'old-answer')),
      user('use the tool'),
      { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 't', content: words(30, 'output') },
    ];
    const result = truncateToBudget({ model: 'chat', messages }, 80);
    if (!result || !('request' in result)) throw new Error('expected a truncation');
    expect(result.request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('says it cannot fit when the pinned messages alone are over the budget, counting tools', () => {
    const request: ChatRequest = { model: 'chat', messages: [{ role: 'system', content: words(200, 'sys') }, user(words(10, 'old')), assistant('ok'), user(words(200, 'question'))], tools: [{ type: 'function', function: { name: 'search', description: words(50, 'd') } }] };
    const result = truncateToBudget(request, 150);
    expect(result).toEqual({ fits: false, minimumTokens: expect.any(Number) });
    expect((result as { minimumTokens: number }).minimumTokens).toBeGreaterThan(estimateTokens([request.messages[0]!, request.messages[3]!]));
  });

  it('drops nothing from a request without a user turn', () => {
    expect(truncateToBudget({ model: 'chat', messages: [assistant(words(400, 'a')), assistant(words(400, 'b'))] }, 100)).toMatchObject({ fits: false });
  });
});
