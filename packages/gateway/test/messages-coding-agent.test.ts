/**
 * The wire shape of a coding agent session (Claude Code with ANTHROPIC_BASE_URL): system blocks
 * with cache_control, tools, thinking on, betas, `?beta=true`, a streamed answer with a thinking
 * block, a tool_use block built from input_json_delta, then the tool's result. Parsed by the
 * SDK's stream helper whichever vendor answers; passed through byte for byte when Anthropic does.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import YAML from 'yaml';
import { startFaultServer, type FaultServer } from '@switchyard/simulate';
import { raw, stopAll, vendor } from './support/harness.js';
import { AGENT_HEADERS, agentRequest, anthropicEvents, firstTurn, hasToolResult, pipelineOf, scriptedVendor, startMessagesGateway, type Script } from './support/messages.js';

const faults: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(faults.splice(0).map((f) => f.close()));
  await stopAll();
});

const RUN_TESTS: Script = {
  thinking: 'The user wants the test suite run. I will use Bash with pnpm test.',
  signature: 'ErUBCkYIBRgCIkD3jQ0Vb9wCwz9uS8ZqYp3WcUqK8Tn0mA2dL7rE4hF6iG1oJ5kN9sX3vB8yC2zR7tQ4uW6eP1aD0fH5jM',
  text: "I'll run the tests.",
  tool: { id: 'toolu_01XyzRunTests', name: 'Bash', input: { command: 'pnpm test', timeout: 120000 } },
};
const AFTER_TESTS: Script = { text: 'All 42 tests passed.' };

/** The agent's next turn: its first answer as the assistant turn, then the tool's output. */
function withToolResult(answer: Anthropic.Message): unknown[] {
  const toolUse = answer.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
  return [...firstTurn, { role: 'assistant', content: answer.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '42 passed, 0 failed', is_error: false }] }];
}

/** Streams one agent turn through the SDK's stream helper, counting the helper's own events. */
async function agentTurn(anthropic: Anthropic, messages: unknown[]) {
  const stream = anthropic.messages.stream(agentRequest(messages), { headers: AGENT_HEADERS, query: { beta: 'true' } });
  const seen = { thinking: '', json: '', signature: false };
  stream.on('thinking', (delta) => (seen.thinking += delta));
  stream.on('inputJson', (delta) => (seen.json += delta));
  stream.on('signature', () => (seen.signature = true));
  const message = await stream.finalMessage();
  return { message, seen };
}

describe('a coding agent session', () => {
  it('answered by OpenAI after Anthropic fails before the first byte: thinking, text and a tool_use the stream helper assembles, then the tool round trip', async () => {
    const claude = await startFaultServer({ vendor: 'anthropic', scenario: 'overloaded' });
    faults.push(claude);
    const openai = await scriptedVendor('openai', (body) => (hasToolResult('openai', body) ? AFTER_TESTS : RUN_TESTS));
    const { anthropic } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'openai', kind: 'openai', url: openai.url }]));

    const first = await agentTurn(anthropic, firstTurn);
    expect(first.message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(first.message.content[0]).toEqual({ type: 'thinking', thinking: RUN_TESTS.thinking, signature: '' });
    expect(first.message.content[2]).toMatchObject({ type: 'tool_use', id: RUN_TESTS.tool!.id, name: 'Bash', input: RUN_TESTS.tool!.input });
    expect(first.message.stop_reason).toBe('tool_use');
    expect(first.seen.thinking).toBe(RUN_TESTS.thinking);
    expect(JSON.parse(first.seen.json)).toEqual(RUN_TESTS.tool!.input);
    expect(first.message.usage).toMatchObject({ input_tokens: 200, output_tokens: 40, cache_read_input_tokens: 100 });

    // What OpenAI got: the agent's turn in Chat Completions terms, nothing Anthropic-only.
    const sent = JSON.parse(openai.requests[0]!.body);
    expect(sent.messages[0]).toEqual({ role: 'system', content: "You are Claude Code, Anthropic's official CLI for Claude.\nYou are an interactive CLI tool that helps users with software engineering tasks." });
    expect(sent.messages[1]).toEqual({ role: 'user', content: '<system-reminder>This is a reminder.</system-reminder>\nRun the tests' });
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(['Bash', 'Read']);
    expect(sent).toMatchObject({ model: 'gpt-4.1', max_completion_tokens: 32000, user: 'user_4f1c_account__session_9d2e', stream: true });
    for (const field of ['thinking', 'system', 'metadata', 'max_tokens', 'reasoning_effort', 'top_k']) expect(sent).not.toHaveProperty(field);
    expect(JSON.stringify(sent)).not.toContain('cache_control');
    // Anthropic's headers are for Anthropic only.
    expect(openai.requests[0]!.headers['anthropic-beta']).toBeUndefined();
    expect(openai.requests[0]!.headers['anthropic-version']).toBeUndefined();

    const second = await agentTurn(anthropic, withToolResult(first.message));
    expect(second.message.content).toEqual([{ type: 'text', text: 'All 42 tests passed.' }]);
    const followUp = JSON.parse(openai.requests[1]!.body);
    expect(followUp.messages.slice(2)).toEqual([
      { role: 'assistant', content: "I'll run the tests.", tool_calls: [{ id: RUN_TESTS.tool!.id, type: 'function', function: { name: 'Bash', arguments: JSON.stringify(RUN_TESTS.tool!.input) } }] },
      { role: 'tool', tool_call_id: RUN_TESTS.tool!.id, content: '42 passed, 0 failed' },
    ]);
    expect(claude.requests.map((r) => r.outcome)).toEqual([529, 529]);
  });

  it('passes through to a healthy Anthropic byte for byte, and the signed thinking goes back unchanged', async () => {
    const vendorStreams: string[] = [];
    const claude = await vendor((_req, res, text) => {
      const stream = anthropicEvents(hasToolResult('anthropic', JSON.parse(text)) ? AFTER_TESTS : RUN_TESTS);
      vendorStreams.push(stream);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(stream);
    });
    const { anthropic, origin } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]));

    const request = agentRequest(firstTurn);
    const wire = await raw(origin, '/v1/messages?beta=true', { body: JSON.stringify(request), headers: AGENT_HEADERS });
    expect(wire.text).toBe(vendorStreams[0]);
    expect(wire.text).toContain('"type":"signature_delta"');
    expect(JSON.parse(claude.requests[0]!.body)).toEqual({ ...request, model: 'claude-sonnet-4-5-20250929' });
    expect(claude.requests[0]!.headers).toMatchObject({ 'anthropic-version': '2023-06-01', 'anthropic-beta': AGENT_HEADERS['anthropic-beta'] });

    const first = await agentTurn(anthropic, firstTurn);
    expect(first.seen.signature).toBe(true);
    expect(first.message.content[0]).toEqual({ type: 'thinking', thinking: RUN_TESTS.thinking, signature: RUN_TESTS.signature });
    await agentTurn(anthropic, withToolResult(first.message));
    // The next turn reaches Anthropic with the thinking block and its signature as Anthropic wrote them.
    const next = JSON.parse(claude.requests.at(-1)!.body);
    expect(next.messages[1].content[0]).toEqual({ type: 'thinking', thinking: RUN_TESTS.thinking, signature: RUN_TESTS.signature });
    expect(next.thinking).toEqual({ type: 'enabled', budget_tokens: 10000 });
  });

  it("passes a recorded Anthropic thinking stream through unchanged, the vendor's whitespace quirks included", async () => {
    const cassette = YAML.parse(readFileSync(new URL('../../../plugins/provider-anthropic/src/__fixtures__/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml', import.meta.url), 'utf8'));
    const recorded: string = cassette.interactions[0].response.body.string;
    const claude = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(recorded);
    });
    const { origin, anthropic } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]));
    const body = { ...cassette.interactions[0].request.parsed_body, model: 'claude-sonnet-4-5' };
    const wire = await raw(origin, '/v1/messages', { body: JSON.stringify(body) });
    // Every vendor event as recorded; the closing message_stop is the gateway's own.
    const cut = recorded.indexOf('event: message_stop');
    expect(wire.text.slice(0, cut)).toBe(recorded.slice(0, cut));
    expect(wire.text.slice(cut)).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    const message = await anthropic.messages.stream(body).finalMessage();
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect((message.content[0] as Anthropic.ThinkingBlock).signature).toMatch(/^EvMCCkYICxgC/);
  });

  it('a session that failed over to OpenAI and comes back to Anthropic: unsigned thinking stays away from Anthropic, and thinking goes off for that turn', async () => {
    const openaiFirst = await scriptedVendor('openai', () => RUN_TESTS);
    const h1 = await startMessagesGateway(pipelineOf([{ name: 'openai', kind: 'openai', url: openaiFirst.url }]));
    const first = await agentTurn(h1.anthropic, firstTurn);
    expect(first.message.content[0]).toMatchObject({ type: 'thinking', signature: '' });

    const claude = await scriptedVendor('anthropic', () => AFTER_TESTS);
    const h2 = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]));
    const second = await agentTurn(h2.anthropic, withToolResult(first.message));
    expect(second.message.content).toEqual([{ type: 'text', text: 'All 42 tests passed.' }]);
    const sent = JSON.parse(claude.requests[0]!.body);
    expect(sent.messages[1].content.map((b: { type: string }) => b.type)).toEqual(['text', 'tool_use']);
    // Anthropic rejects a thinking request whose tool turn lacks its thinking block: off for this turn.
    expect(sent).not.toHaveProperty('thinking');
    expect(sent.tools).toEqual(agentRequest([]).tools);
  });
});
