import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, requestOriginOf } from '@switchyard/core/wire';
import { inClientTerms, PathRecorder } from './client-paths.js';
import { decodeMessagesRequest } from './decode-request.js';

const base = { model: 'claude-sonnet-4-5', max_tokens: 100 };

describe('decodeMessagesRequest', () => {
  it.each([
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'any' }, { tool_choice: 'required' }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [{ type: 'tool', name: 'f' }, { tool_choice: { type: 'function', function: { name: 'f' } } }],
    [{ type: 'auto', disable_parallel_tool_use: true }, { tool_choice: 'auto', parallel_tool_calls: false }],
    [{ type: 'tool', name: 'f', disable_parallel_tool_use: false }, { tool_choice: { type: 'function', function: { name: 'f' } } }],
  ])('tool_choice %j → %j', (choice, expected) => {
    const { request } = decodeMessagesRequest({ ...base, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'f', input_schema: { type: 'object' } }], tool_choice: choice }, {});
    expect({ tool_choice: request.tool_choice, ...(request.parallel_tool_calls === false ? { parallel_tool_calls: false } : {}) }).toEqual(expected);
  });

  it('keeps the client body as the origin, without our hints, with the forwarded headers only', () => {
    const body = { ...base, messages: [{ role: 'user', content: 'x' }], switchyard: { tier: 'fast' }, top_k: 3 };
    const { request } = decodeMessagesRequest(body, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'b1', 'x-api-key': 'gw-secret', authorization: 'Bearer gw-secret' });
    const origin = requestOriginOf(request, ANTHROPIC_MESSAGES)!;
    expect(origin.body).toEqual({ ...base, messages: body.messages, top_k: 3 });
    expect(origin.headers).toEqual({ 'anthropic-version': '2023-06-01', 'anthropic-beta': 'b1' });
    expect(origin.untranslatable).toBeUndefined();
    expect(request).toEqual({ model: base.model, messages: [{ role: 'user', content: 'x' }], max_completion_tokens: 100, switchyard: { tier: 'fast' } });
  });

  it('leaves unsigned thinking out of what Anthropic gets, and thinking off when the last assistant turn lost its block', () => {
    const messages = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'old', signature: 'sig-1' }, { type: 'text', text: 'b' }] },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'foreign', signature: '' }, { type: 'tool_use', id: 't1', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    ];
    const body = { ...base, messages, thinking: { type: 'enabled', budget_tokens: 1024 } };
    const { request } = decodeMessagesRequest(body, {});
    const sent = requestOriginOf(request)!.body as typeof body;
    expect(sent.thinking).toBeUndefined();
    expect(sent.messages[1]).toBe(messages[1]);
    expect(sent.messages[3]!.content).toEqual([{ type: 'tool_use', id: 't1', name: 'f', input: {} }]);
    // The client's own body is untouched.
    expect(messages[3]!.content).toHaveLength(2);
    expect(request.messages[1]).toEqual({ role: 'assistant', content: 'b', reasoning_content: 'old', providerMetadata: { anthropic: { thinkingBlocks: [{ type: 'thinking', thinking: 'old', signature: 'sig-1' }] } } });
    expect(request.messages[3]).toMatchObject({ role: 'assistant', content: null, reasoning_content: 'foreign' });
    expect(request.messages[3]!.providerMetadata).toBeUndefined();
  });

  it('lists what only Anthropic takes, and keeps a turn made only of it', () => {
    const { request } = decodeMessagesRequest(
      {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }, { role: 'assistant', content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: {} }, { type: 'text', text: 'x' }] }],
        tools: [{ name: 'f', input_schema: { type: 'object' } }, { type: 'bash_20250124', name: 'bash' }],
        container: 'c1',
      },
      {},
    );
    expect(requestOriginOf(request)!.untranslatable).toEqual([
      { path: 'messages[0].content[0]', what: 'a search_result block', feature: 'block:search_result' },
      { path: 'messages[1].content[0]', what: 'a server_tool_use block', feature: 'block:server_tool_use' },
      { path: 'tools[1]', what: 'the bash_20250124 tool "bash"', feature: 'tool:bash' },
      { path: 'container', what: 'a code execution container', feature: 'container' },
    ]);
    expect(request.messages).toEqual([{ role: 'user', content: '' }, { role: 'assistant', content: 'x' }]);
    expect(request.tools).toHaveLength(1);
  });

  it('takes a system turn inside messages (Claude Code 2.1 sends its environment that way) as a system message where it stands', () => {
    const messages = [
      { role: 'user', content: 'a' },
      { role: 'system', content: [{ type: 'text', text: '# Environment' }, { type: 'text', text: 'cwd: /w' }] },
      { role: 'system', content: 'plain' },
    ];
    const { request } = decodeMessagesRequest({ ...base, messages }, {});
    expect(request.messages).toEqual([
      { role: 'user', content: 'a' },
      { role: 'system', content: '# Environment\ncwd: /w' },
      { role: 'system', content: 'plain' },
    ]);
    expect(() => decodeMessagesRequest({ ...base, messages: [{ role: 'system', content: [{ type: 'image', source: {} }] }] }, {})).toThrow(/messages\[0\]\.content\[0\]: must be a text block/);
    expect(() => decodeMessagesRequest({ ...base, messages: [{ role: 'tool', content: 'x' }] }, {})).toThrow(/messages\[0\]\.role: must be "user", "assistant" or "system", got "tool"/);
  });

  it('keeps the client\'s text with the origin only while the origin is that body, unchanged', () => {
    const text = JSON.stringify({ ...base, messages: [{ role: 'user', content: 'hi' }] });
    const plain = decodeMessagesRequest(JSON.parse(text), {}, { bodyText: text }).request;
    expect(requestOriginOf(plain, ANTHROPIC_MESSAGES)?.text).toBe(text);
    // Hints are taken out of what goes on: the text would carry them.
    const hinted = `${text.slice(0, -1)},"switchyard":{"tier":"fast"}}`;
    const withHints = requestOriginOf(decodeMessagesRequest(JSON.parse(hinted), {}, { bodyText: hinted }).request, ANTHROPIC_MESSAGES)!;
    expect(withHints.text).toBeUndefined();
    expect(withHints.body.switchyard).toBeUndefined();
    expect(requestOriginOf(decodeMessagesRequest(JSON.parse(text), {}).request, ANTHROPIC_MESSAGES)?.text).toBeUndefined();
  });

  it('count_tokens bodies need no max_tokens', () => {
    const { request } = decodeMessagesRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, {}, { countOnly: true });
    expect(request.max_completion_tokens).toBeUndefined();
    expect(() => decodeMessagesRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, {})).toThrow(/^max_tokens: is required$/);
  });
});

describe('errors in the client’s terms', () => {
  const body = {
    ...base,
    system: 'sys',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image', source: { type: 'url', url: 'https://x/a.png' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }, { type: 'tool_use', id: 't', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'r' }, { type: 'image', source: { type: 'url', url: 'https://x/b.png' } }] }, { type: 'text', text: 'c' }] },
    ],
    tools: [{ type: 'web_search_20250305', name: 'w' }, { name: 'f', input_schema: { type: 'object' } }],
  };
  const record = () => {
    const paths = new PathRecorder();
    decodeMessagesRequest(body, {}, { paths });
    return paths;
  };

  it.each([
    ['messages[0]', 'system'],
    ['messages[1].content[1].image_url.url', 'messages[0].content[1]'],
    ['messages[2].tool_calls[0].function.arguments', 'messages[1].content[1]'],
    ['messages[3].content[1]', 'messages[2].content[0].content[1]'],
    ['messages[4]', 'messages[2]'],
    ['tools[0].function.name', 'tools[1]'],
    ['max_completion_tokens', 'max_tokens'],
    ['stop', 'stop_sequences'],
  ])('%s is %s', (unified, client) => {
    expect(record().clientPath(unified)).toBe(client);
  });

  it('renames the path and the message once; an unexpressible error about an Anthropic-only part already names the client field', () => {
    const { request } = decodeMessagesRequest({ ...base, messages: [{ role: 'user', content: 'x' }] }, {});
    const error = new SwitchyardError('invalid-request', 'messages[0]: too long', { path: 'messages[0]' });
    const paths = new PathRecorder();
    paths.message(0, 'system');
    expect(inClientTerms(error, request, () => paths)).toBe(error);
    expect(error).toMatchObject({ path: 'system', message: 'system: too long' });
    inClientTerms(error, request, () => paths);
    expect(error.message).toBe('system: too long');

    const { request: foreign } = decodeMessagesRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }] }, {});
    const unexpressible = new SwitchyardError('invalid-request', 'messages[0].content[0]: a search_result block …', { path: 'messages[0].content[0]', code: 'SWITCHYARD_ERR_UNEXPRESSIBLE' });
    inClientTerms(unexpressible, foreign, () => paths);
    expect(unexpressible.path).toBe('messages[0].content[0]');
  });
});
