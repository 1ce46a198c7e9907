import { describe, expect, it } from 'vitest';
import { type ChatRequest } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, setRequestOrigin } from '@switchyard/core/wire';
import { cacheKey, MemoryResponseStore } from '../src/index.js';

const base: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }], temperature: 0, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] };

describe('cacheKey', () => {
  it('ignores delivery and caller fields and field order', () => {
    const key = cacheKey(base);
    expect(cacheKey({ ...base, stream: true, stream_options: { include_usage: true } })).toBe(key);
    expect(cacheKey({ ...base, user: 'u1', metadata: { a: 'b' }, switchyard: { tier: 'fast', tags: { t: 'x' } } })).toBe(key);
    expect(cacheKey({ tools: base.tools, temperature: 0, messages: base.messages, model: 'chat' })).toBe(key);
    expect(cacheKey({ ...base, seed: undefined })).toBe(key);
  });

  it('treats equivalent spellings alike', () => {
    expect(cacheKey({ ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 'h' }, { type: 'text', text: 'i' }] }] })).toBe(cacheKey(base));
    expect(cacheKey({ ...base, stop: 'END' })).toBe(cacheKey({ ...base, stop: ['END'] }));
  });

  it.each<[string, Partial<ChatRequest>]>([
    ['model', { model: 'other' }],
    ['message text', { messages: [{ role: 'user', content: 'hi!' }] }],
    ['role', { messages: [{ role: 'system', content: 'hi' }] }],
    ['tools', { tools: [{ type: 'function', function: { name: 'g' } }] }],
    ['tool_choice', { tool_choice: 'required' }],
    ['response_format', { response_format: { type: 'json_object' } }],
    ['temperature', { temperature: 0.7 }],
    ['top_p', { top_p: 0.5 }],
    ['max_tokens', { max_tokens: 10 }],
    ['stop', { stop: ['x'] }],
    ['seed', { seed: 7 }],
    ['an unknown vendor field', { logit_bias: { 50256: -100 } }],
  ])('changes with %s', (_name, change) => {
    expect(cacheKey({ ...base, ...change } as ChatRequest)).not.toBe(cacheKey(base));
  });

  it("keys a request from another dialect on the client's own body too (what the unified shape cannot carry changes the answer)", () => {
    const fromMessages = (body: Record<string, unknown>) => {
      const request: ChatRequest = { ...base };
      setRequestOrigin(request, { format: ANTHROPIC_MESSAGES, body });
      return cacheKey(request);
    };
    const plain = { model: 'chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    const withServerTool = { ...plain, tools: [{ type: 'web_search_20250305', name: 'web_search' }] };
    expect(fromMessages(plain)).not.toBe(cacheKey(base));
    expect(fromMessages(withServerTool)).not.toBe(fromMessages(plain));
    // How it is delivered and who asked still do not count.
    expect(fromMessages({ ...plain, stream: true, metadata: { user_id: 'u' } })).toBe(fromMessages(plain));
  });
});

describe('MemoryResponseStore', () => {
  const entry = (text: string) => ({ storedAt: 0, response: { id: 'x', object: 'chat.completion' as const, created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant' as const, content: text }, finish_reason: 'stop' as const }] } });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const store = new MemoryResponseStore(() => 0, 2, 1e9);
    await store.set('a', entry('a'), 1000);
    await store.set('b', entry('b'), 1000);
    await store.get('a');
    await store.set('c', entry('c'), 1000);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBeDefined();
    expect(await store.get('c')).toBeDefined();
  });

  it('keeps the total size under maxBytes and refuses an entry larger than the bound', async () => {
    const one = Buffer.byteLength(JSON.stringify(entry('x'.repeat(100)).response));
    const store = new MemoryResponseStore(() => 0, 100, one * 2 + 10);
    await store.set('a', entry('x'.repeat(100)), 1000);
    await store.set('b', entry('y'.repeat(100)), 1000);
    await store.set('c', entry('z'.repeat(100)), 1000);
    expect(store.size).toBe(2);
    expect(store.totalBytes).toBeLessThanOrEqual(one * 2 + 10);
    expect(await store.get('a')).toBeUndefined();
    await store.set('huge', entry('h'.repeat(1000)), 1000);
    expect(await store.get('huge')).toBeUndefined();
    expect(store.size).toBe(2);
  });

  it('drops entries after their time to live', async () => {
    let now = 0;
    const store = new MemoryResponseStore(() => now, 10, 1e9);
    await store.set('a', entry('a'), 1000);
    now = 999;
    expect(await store.get('a')).toBeDefined();
    now = 1000;
    expect(await store.get('a')).toBeUndefined();
    expect(store.totalBytes).toBe(0);
  });
});
