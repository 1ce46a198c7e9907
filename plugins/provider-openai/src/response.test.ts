import { describe, expect, it } from 'vitest';
import { type ProviderHttpResponse } from '@switchyard/core';
import { OPENAI_CHAT_COMPLETION, wireBodyOf } from '@switchyard/core/wire';
import { parseChatResponse } from './response.js';

const target = { model: 'm' };
const http = (body: unknown): ProviderHttpResponse => {
  const text = JSON.stringify(body);
  return { status: 200, headers: {}, text, json: JSON.parse(text) };
};
const clean = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };

describe('the same-format wire body', () => {
  it('keeps the vendor text of a standard Chat Completions body', () => {
    const res = http(clean);
    expect(wireBodyOf(parseChatResponse(res, 'openai', target), OPENAI_CHAT_COMPLETION)).toBe(res.text);
  });

  it.each([
    ['a finish reason outside the OpenAI set', { choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'eos' }] }],
    ['a tool call without an id', { choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] }],
    ['a non-standard reasoning field', { choices: [{ index: 0, message: { role: 'assistant', content: 'x', reasoning: 'because' }, finish_reason: 'stop' }] }],
    ['usage without a total', { usage: { prompt_tokens: 1, completion_tokens: 1 } }],
    ['no object type', { object: undefined }],
    ['a missing content field', { choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }] }],
  ])('re-encodes a body with %s', (_what, change) => {
    expect(wireBodyOf(parseChatResponse(http({ ...clean, ...change }), 'openai', target), OPENAI_CHAT_COMPLETION)).toBeUndefined();
  });
});
