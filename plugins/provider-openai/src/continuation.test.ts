import { describe, expect, it } from 'vitest';
import type { Candidate, ChatRequest } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, OPENAI_RESPONSES, requestOriginOf, setRequestOrigin } from '@switchyard/core/wire';
import { openaiProvider } from './openai.js';

const target = { id: 'b/gpt', deploymentId: 'b/gpt', model: 'gpt-b', provider: 'openai', endpoint: { name: 'b', provider: 'openai' }, capabilities: new Set() } as unknown as Candidate;
const from = { ...target, id: 'a/gpt', deploymentId: 'a/gpt' } as Candidate;
const TOOLS = [{ type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } }];

function responsesRequest(body: Record<string, unknown>): ChatRequest {
  const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };
  setRequestOrigin(request, { format: OPENAI_RESPONSES, body, text: JSON.stringify(body), hints: [{ path: 'prompt_cache_key', what: 'a prompt cache key', feature: 'prompt_cache_key' }] });
  return request;
}

describe('openai continuation', () => {
  it('a Responses client: its own body, the partial answer as a trailing assistant item, store off, no previous_response_id', () => {
    const body = { model: 'chat', input: [{ role: 'user', content: 'hi' }], tools: TOOLS, store: true, previous_response_id: 'resp_1', prompt_cache_key: 'k' };
    const next = openaiProvider.continuation!(responsesRequest(body), 'Hello, wor', target, from)!;
    expect(next.messages.at(-1)).toEqual({ role: 'assistant', content: 'Hello, wor' });
    const origin = requestOriginOf(next, OPENAI_RESPONSES)!;
    expect(origin.text).toBeUndefined();
    expect(origin.hints).toHaveLength(1);
    expect(origin.body).toEqual({ model: 'chat', tools: TOOLS, store: false, prompt_cache_key: 'k', input: [{ role: 'user', content: 'hi' }, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello, wor', annotations: [] }] }] });
    const sent = JSON.parse(openaiProvider.buildRequest(next, target, { stream: true } as never).body as string);
    expect(sent).toMatchObject({ model: 'gpt-b', stream: true, store: false, tools: TOOLS });
    expect(sent.input.at(-1).role).toBe('assistant');
  });

  it('a string input becomes a user message before the partial answer', () => {
    const next = openaiProvider.continuation!(responsesRequest({ model: 'chat', input: 'hi' }), 'Hel', target, from)!;
    expect(requestOriginOf(next)!.body.input).toEqual([{ role: 'user', content: 'hi' }, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hel', annotations: [] }] }]);
  });

  it('a client of another dialect gets the unified prefill, its origin kept for the checks', () => {
    const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };
    setRequestOrigin(request, { format: ANTHROPIC_MESSAGES, body: { model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, untranslatable: [{ path: 'container', what: 'a container' }] });
    const next = openaiProvider.continuation!(request, 'Hel', target, from)!;
    expect(next.messages.at(-1)).toEqual({ role: 'assistant', content: 'Hel' });
    expect(requestOriginOf(next)?.untranslatable).toHaveLength(1);
  });
});
