/**
 * A Messages request shaped like Claude Code's (signed thinking, tools, cache_control on the
 * system prompt and the last turn, context_management, its betas) and the stream Claude answers
 * it with: thinking, text, a tool call. Shared by the Anthropic, Bedrock and Vertex fakes.
 */
import { ANTHROPIC_MESSAGES, setRequestOrigin, type ChatRequest, type StreamPart, type SwitchyardError } from '@switchyard/core';

export const CLAUDE_CODE_BETAS = ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'fine-grained-tool-streaming-2025-05-14', 'context-management-2025-06-27'];

export function claudeCodeBody(model = 'claude-sonnet-4-5'): Record<string, unknown> {
  return {
    model,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: 'Working directory: /repo', cache_control: { type: 'ephemeral' } },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Why does the test fail?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Run the tests first.', signature: 'EqoBCkgIARABGAIiQL0sig' },
          { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'pnpm test' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '1 failed', cache_control: { type: 'ephemeral' } }] },
    ],
    tools: [{ name: 'Bash', description: 'Runs a shell command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }],
    thinking: { type: 'enabled', budget_tokens: 8000 },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }] },
    metadata: { user_id: 'user_0123_account__session_4567' },
  };
}

/** Claude's answer as Messages stream events (the last one is message_stop). */
export function claudeCodeEvents(model: string, extraStop: Record<string, unknown> = {}): Record<string, unknown>[] {
  return [
    { type: 'message_start', message: { id: 'msg_01cloud', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1200, cache_creation_input_tokens: 0, cache_read_input_tokens: 1100, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The assertion compares floats.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqoBCkgIARABGAIiQnew' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'The test compares floats exactly. ' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_02', name: 'Bash', input: {} } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command":' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"pnpm test -- math"}' } },
    { type: 'content_block_stop', index: 2 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 61 } },
    { type: 'message_stop', ...extraStop },
  ];
}

/** The same answer as a whole Message (non-streaming). */
export function claudeCodeMessage(model: string): Record<string, unknown> {
  return {
    id: 'msg_01cloud',
    type: 'message',
    role: 'assistant',
    model,
    content: [
      { type: 'thinking', thinking: 'The assertion compares floats.', signature: 'EqoBCkgIARABGAIiQnew' },
      { type: 'text', text: 'The test compares floats exactly. ' },
      { type: 'tool_use', id: 'toolu_02', name: 'Bash', input: { command: 'pnpm test -- math' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1200, cache_creation_input_tokens: 0, cache_read_input_tokens: 1100, output_tokens: 61 },
  };
}

/** Claude Code's request as the Messages ingress hands it on: the unified request with the client's body and headers. */
export function claudeCodeRequest(model = 'claude'): ChatRequest {
  const unified: ChatRequest = { model, messages: [{ role: 'user', content: 'Why does the test fail?' }] };
  setRequestOrigin(unified, { format: ANTHROPIC_MESSAGES, body: { ...claudeCodeBody(), model }, headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': CLAUDE_CODE_BETAS.join(',') } });
  return unified;
}

export async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The error `run` fails with: the first attempt's when every candidate failed. */
export async function failureOf(run: () => Promise<unknown>): Promise<SwitchyardError> {
  try {
    await run();
  } catch (error) {
    const e = error as SwitchyardError;
    return e.kind === 'all-candidates-failed' ? (e.attempts?.[0] ?? e) : e;
  }
  throw new Error('expected a failure');
}
