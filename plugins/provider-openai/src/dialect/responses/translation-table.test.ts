/**
 * The Responses translation table covers what clients send: a Codex turn (additional_tools with
 * a namespace and a custom grammar tool, hosted web_search, its hints, a custom tool round trip)
 * and a request using every item, part and tool type the decoder reads meet only listed entries.
 * Something the table does not list is a capability named `unlisted`.
 */
import { describe, expect, it } from 'vitest';
import { decodeRequest, type SourcedItem } from './decode-request.js';
import { RESPONSES_TABLE } from './translation-table.js';
import type { Json, ResponseItem } from './wire-types.js';

const CODEX: Json = {
  model: 'gpt-5-codex',
  instructions: 'You are Codex.',
  input: [
    { type: 'additional_tools', role: 'developer', tools: [{ type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } }, { type: 'namespace', name: 'collab', tools: [{ type: 'function', name: 'send', parameters: { type: 'object' } }] }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Create hello.txt' }] },
    { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Patch it.' }], encrypted_content: 'gAAAA' },
    { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' },
    { type: 'custom_tool_call_output', call_id: 'c1', output: 'Done' },
    { type: 'function_call', call_id: 'c2', namespace: 'collab', name: 'send', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c2', output: 'sent' },
    { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
  ],
  tools: [{ type: 'web_search' }],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning: { effort: 'medium', summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: 'session-1',
  text: { verbosity: 'low' },
  client_metadata: { originator: 'codex_cli_rs' },
};

const sourced = (body: Json): SourcedItem[] => (body.input as ResponseItem[]).map((item, i) => ({ item, path: `input[${i}]` }));

describe('the Responses translation table', () => {
  it('carries a Codex turn: its tools become functions, the custom and namespaced calls keep their way back; its hints are listed', () => {
    const { request, hints, capabilities, toolNames } = decodeRequest(CODEX, sourced(CODEX));
    expect(capabilities).toEqual([]);
    expect(hints.map((h) => h.feature)).toEqual(['include', 'prompt_cache_key', 'client_metadata', 'item:web_search_call', 'tool:web_search', 'reasoning.summary', 'text.verbosity']);
    expect(request.tools!.map((t) => t.function.name)).toEqual(['apply_patch', 'collab__send']);
    expect([...toolNames]).toEqual([
      ['apply_patch', { kind: 'custom', name: 'apply_patch' }],
      ['collab__send', { kind: 'function', name: 'send', namespace: 'collab' }],
    ]);
    const calls = request.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function);
    expect(calls).toEqual([
      { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
      { name: 'collab__send', arguments: '{}' },
    ]);
    expect(request.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['Done', 'sent']);
  });

  it('lists every field, item, part and tool type the decoder reads', () => {
    const everything: Json = {
      ...CODEX,
      input: [
        ...(CODEX.input as unknown[]),
        { type: 'message', role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }, { type: 'input_file', file_url: 'https://x' }, { type: 'input_audio', input_audio: {} }] },
        ...['item_reference', 'file_search_call', 'computer_call', 'image_generation_call', 'code_interpreter_call', 'local_shell_call', 'shell_call', 'apply_patch_call', 'mcp_call', 'tool_search_call', 'compaction'].map((type) => ({ type, id: `${type}_1` })),
      ],
      tools: ['web_search_preview_2025_03_11', 'file_search', 'code_interpreter', 'computer_use_preview', 'image_generation', 'mcp', 'local_shell', 'shell', 'apply_patch', 'tool_search'].map((type) => ({ type })),
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] },
      service_tier: 'auto',
      truncation: 'auto',
      safety_identifier: 'u1',
      max_tool_calls: 3,
      top_logprobs: 2,
      prompt_cache_retention: '24h',
      stream_options: { include_obfuscation: false },
      context_management: [{ type: 'compaction', compact_threshold: 1000 }],
      conversation: 'conv_1',
      prompt: { id: 'pmpt_1' },
      metadata: { a: 'b' },
      user: 'u',
      temperature: 1,
      top_p: 1,
      max_output_tokens: 100,
    };
    const { hints, capabilities } = decodeRequest(everything, sourced(everything));
    const met = [...hints, ...capabilities].map((f) => f.feature);
    expect(met).not.toContain('unlisted');
    for (const feature of met) expect(RESPONSES_TABLE).toHaveProperty([feature!]);
  });

  it('something it does not list is a capability named unlisted', () => {
    const body = { ...CODEX, tools: [{ type: 'quantum_search' }], new_field: 1 };
    const { capabilities } = decodeRequest(body, sourced(body));
    expect(capabilities).toEqual([
      { path: 'new_field', what: 'the field "new_field"', feature: 'unlisted' },
      { path: 'tools[0]', what: 'a quantum_search tool', feature: 'unlisted' },
    ]);
  });
});
