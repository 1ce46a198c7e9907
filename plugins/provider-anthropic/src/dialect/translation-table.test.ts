/**
 * The Messages translation table covers what clients send: a stock Claude Code turn (system
 * blocks with cache_control, thinking, context_management, betas, a signed thinking block and a
 * tool round trip) and a request using every block, source and tool type the decoder reads meet
 * only listed entries. Something the table does not list is a capability named `unlisted`.
 */
import { describe, expect, it } from 'vitest';
import { requestOriginOf } from '@switchyard/core/wire';
import { decodeMessagesRequest } from './decode-request.js';
import { MESSAGES_TABLE } from './translation-table.js';

const CLAUDE_CODE = {
  model: 'claude-sonnet-4-5',
  max_tokens: 32000,
  stream: true,
  system: [{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Run the tests', cache_control: { type: 'ephemeral' } }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'Use Bash.', signature: 'EqQBCgIYAh' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'pnpm test' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '42 passed', is_error: false }] },
  ],
  tools: [{ name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
  thinking: { type: 'enabled', budget_tokens: 10000 },
  metadata: { user_id: 'user_1' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
};

const EVERYTHING = {
  ...CLAUDE_CODE,
  top_k: 5,
  service_tier: 'auto',
  temperature: 1,
  top_p: 1,
  stop_sequences: ['END'],
  tool_choice: { type: 'auto' },
  messages: [
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        { type: 'image', source: { type: 'file', file_id: 'file_1' } },
        { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
        { type: 'document', source: { type: 'content', content: [] } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' }, citations: { enabled: true } },
        { type: 'search_result', source: 's', title: 't', content: [] },
      ],
    },
    { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'abc' }, { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} }, { type: 'web_search_tool_result', tool_use_id: 's1', content: [] }, { type: 'text', text: 'x' }] },
    { role: 'user', content: 'go on' },
  ],
  tools: [
    ...CLAUDE_CODE.tools,
    { type: 'custom', name: 'c', input_schema: { type: 'object' } },
    { type: 'web_search_20250305', name: 'web_search' },
    { type: 'web_fetch_20250910', name: 'web_fetch' },
    { type: 'code_execution_20250825', name: 'code_execution' },
    { type: 'bash_20250124', name: 'bash' },
    { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
    { type: 'computer_20250124', name: 'computer' },
    { type: 'memory_20250818', name: 'memory' },
  ],
  container: 'c1',
  mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'x' }],
};

const HEADERS = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,context-management-2025-06-27' };

describe('the Messages translation table', () => {
  it('lists everything a stock Claude Code turn has: context_management, cache_control, thinking and the betas are hints', () => {
    const { hints, capabilities } = decodeMessagesRequest(CLAUDE_CODE, HEADERS);
    expect(capabilities).toEqual([]);
    expect(hints.map((h) => h.feature)).toEqual(['cache_control', 'thinking', 'context_management', 'header:anthropic-beta']);
  });

  it('lists every field, block, source and tool type the decoder reads', () => {
    const { hints, capabilities } = decodeMessagesRequest(EVERYTHING, HEADERS);
    const met = [...hints, ...capabilities].map((f) => f.feature);
    expect(met).not.toContain('unlisted');
    for (const feature of met) expect(MESSAGES_TABLE).toHaveProperty([feature!]);
  });

  it('something it does not list is a capability named unlisted (the request goes to Anthropic only)', () => {
    const { request, capabilities } = decodeMessagesRequest({ ...CLAUDE_CODE, output_format: { type: 'json_schema' }, 'block:text': 1 }, HEADERS);
    expect(capabilities).toEqual([
      { path: 'output_format', what: 'the field "output_format"', feature: 'unlisted' },
      { path: 'block:text', what: 'the field "block:text"', feature: 'unlisted' },
    ]);
    expect(requestOriginOf(request)!.untranslatable).toEqual(capabilities);
  });
});
