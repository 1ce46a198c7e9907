/**
 * The translation policy with the coding agents' real request shapes: a stock Claude Code turn
 * (always `context_management` clear_thinking_20251015, `cache_control`, thinking, betas) fails
 * over Anthropic 529 → OpenAI Chat, and a Codex turn (`additional_tools` with a namespace and a
 * custom grammar tool, hosted `web_search`, `prompt_cache_key`, verbosity, client metadata)
 * fails over Responses 503 → Anthropic, tool round trip included: the custom tool's call comes
 * back as a `custom_tool_call` item and its output goes to Anthropic as a tool result. What the
 * fallback did without is disclosed (header, event, access line, metric); `translate: strict`
 * skips instead, and the final error names the skipped deployment.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type SwitchyardEvents } from '@switchyard/core';
import { metrics } from '@switchyard/plugin-metrics';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider } from '@switchyard/provider-openai';
import { Registry } from 'prom-client';
import { fails, raw, startGateway, stopAll, vendor, VENDOR_KEY } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';
import { AGENT_HEADERS, agentRequest, firstTurn, hasToolResult, pipelineOf, scriptedVendor, startMessagesGateway, type Script } from './support/messages.js';
import { anthropicVendor } from './support/scripted-vendors.js';

afterEach(stopAll);

/** What stock Claude Code adds to every main-loop request (its default betas turn it on). */
const CONTEXT_MANAGEMENT = { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };

const RUN_TESTS: Script = { text: "I'll run the tests.", tool: { id: 'toolu_01Run', name: 'Bash', input: { command: 'pnpm test' } } };
const AFTER_TESTS: Script = { text: 'All 42 tests passed.' };

function sseEvents(text: string): any[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)));
}

/** The text a Messages stream wrote. */
const textOf = (stream: string) => sseEvents(stream).filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta').map((e) => e.delta.text).join('');

describe('Claude Code, stock settings', () => {
  it('fails over Anthropic 529 → OpenAI Chat: context_management and the other hints are dropped and disclosed, tool round trip included', async () => {
    const claude = await vendor(fails(529, 'Overloaded', { type: 'overloaded_error' }));
    const openai = await scriptedVendor('openai', (body) => (hasToolResult('openai', body) ? AFTER_TESTS : RUN_TESTS));
    const registry = new Registry();
    const logger = recordingLogger();
    const pipeline = pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'openai', kind: 'openai', url: openai.url }], { plugins: [metrics({ registry })] });
    const dropped: SwitchyardEvents['field:dropped'][0][] = [];
    pipeline.events.on('field:dropped', (e) => dropped.push(e));
    const { origin } = await startMessagesGateway(pipeline, { logger });

    const body = agentRequest(firstTurn, { context_management: CONTEXT_MANAGEMENT });
    const first = await raw(origin, '/v1/messages?beta=true', { body: JSON.stringify(body), headers: { ...AGENT_HEADERS, 'anthropic-beta': `${AGENT_HEADERS['anthropic-beta']},context-management-2025-06-27` } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-switchyard-dropped')).toBe('cache_control, thinking, context_management, header:anthropic-beta');
    const events = sseEvents(first.text);
    expect(events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use')?.content_block).toMatchObject({ id: 'toolu_01Run', name: 'Bash' });
    expect(claude.requests).toHaveLength(1);
    const sent = JSON.parse(openai.requests[0]!.body);
    expect(sent).not.toHaveProperty('context_management');
    expect(JSON.stringify(sent)).not.toContain('cache_control');

    // The tool's result goes back through the fallback.
    const assistant = { role: 'assistant', content: [{ type: 'text', text: "I'll run the tests." }, { type: 'tool_use', id: 'toolu_01Run', name: 'Bash', input: { command: 'pnpm test' } }] };
    const next = agentRequest([...firstTurn, assistant, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Run', content: '42 passed' }] }], { context_management: CONTEXT_MANAGEMENT });
    const second = await raw(origin, '/v1/messages?beta=true', { body: JSON.stringify(next), headers: AGENT_HEADERS });
    expect(second.status).toBe(200);
    expect(textOf(second.text)).toBe('All 42 tests passed.');
    expect(JSON.parse(openai.requests[1]!.body).messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'toolu_01Run', content: '42 passed' });

    // Disclosed everywhere: the event, the access line, the metric.
    expect(dropped).toHaveLength(2);
    expect(dropped[0]!.candidate.deploymentId).toBe('openai/gpt-4.1');
    expect(dropped[0]!.dropped.map((d) => d.feature)).toEqual(['cache_control', 'thinking', 'context_management', 'header:anthropic-beta']);
    const access = logger.lines.filter((l) => l.event === 'access');
    expect(access[0]).toMatchObject({ dropped: 'cache_control, thinking, context_management, header:anthropic-beta' });
    const exposition = await registry.metrics();
    expect(exposition).toContain('switchyard_translation_total{deployment="openai/gpt-4.1",action="dropped",feature="context_management"} 2');
  });

  it('translate: strict on the fallback keeps the old skip, and the final error names the skipped deployment and why', async () => {
    const claude = await vendor(fails(529, 'Overloaded', { type: 'overloaded_error' }));
    const openai = await scriptedVendor('openai', () => RUN_TESTS);
    const registry = new Registry();
    const logger = recordingLogger();
    const pipeline = createPipeline({
      endpoints: [
        { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY },
        { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY },
      ],
      models: { 'claude-sonnet-4-5': [{ endpoint: 'claude', model: 'claude-sonnet-4-5-20250929' }, { endpoint: 'openai', model: 'gpt-4.1', translate: 'strict' }] },
      providers: [anthropicProvider, openaiProvider],
      plugins: [metrics({ registry })],
    });
    const skipped: SwitchyardEvents['candidate:skipped'][0][] = [];
    pipeline.events.on('candidate:skipped', (e) => skipped.push(e));
    const { origin } = await startMessagesGateway(pipeline, { logger });
    const answer = await raw(origin, '/v1/messages', { body: JSON.stringify(agentRequest(firstTurn, { context_management: CONTEXT_MANAGEMENT })), headers: AGENT_HEADERS });
    expect(answer.status).toBe(529);
    expect(answer.json.error.type).toBe('overloaded_error');
    expect(answer.json.error.message).toContain('skipped before any attempt: openai/gpt-4.1 (system[0].cache_control: prompt cache breakpoints (cache_control) would be dropped for openai, and this deployment has translate: strict)');
    expect(openai.requests).toHaveLength(0);
    expect(skipped).toEqual([expect.objectContaining({ model: 'claude-sonnet-4-5', path: 'system[0].cache_control', feature: 'cache_control' })]);
    expect(logger.lines.find((l) => l.event === 'access')).toMatchObject({ skipped: 'openai/gpt-4.1 (cache_control)' });
    expect(await registry.metrics()).toContain('switchyard_translation_total{deployment="openai/gpt-4.1",action="skipped",feature="cache_control"} 1');
  });
});

/* ---------------------------------------------------------------- Codex */

const APPLY_PATCH_GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?';
const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n';

/** Codex's default-model request: tools in an `additional_tools` input item (a namespace, a custom grammar tool), hosted web search. */
function codexRequest(extraInput: unknown[] = []): Record<string, unknown> {
  return {
    model: 'codex',
    instructions: 'You are Codex, a coding agent.',
    input: [
      {
        type: 'additional_tools',
        role: 'developer',
        tools: [
          { type: 'function', name: 'shell', description: 'Runs a shell command.', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } },
          { type: 'custom', name: 'apply_patch', description: 'Use the `apply_patch` tool to edit files.', format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_GRAMMAR } },
          { type: 'namespace', name: 'collaboration', description: 'Agent collaboration', tools: [{ type: 'function', name: 'send_message', parameters: { type: 'object', properties: { message: { type: 'string' } } } }] },
        ],
      },
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<environment_context>cwd: /repo</environment_context>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Create hello.txt' }] },
      ...extraInput,
    ],
    tools: [{ type: 'web_search' }],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '0199a1b2-codex-session',
    text: { verbosity: 'low' },
    client_metadata: { originator: 'codex_cli_rs' },
  };
}

describe('Codex, default model', () => {
  it('fails over Responses 503 → Anthropic: tools carried, web_search dropped and disclosed, the custom tool call comes back as custom_tool_call and its output reaches Anthropic', async () => {
    const openai = await vendor(fails(503, 'The server is overloaded'));
    const claude = await vendor(
      anthropicVendor((body) =>
        body.includes('tool_result') ? { text: ['Created hello.txt.'] } : { call: { id: 'toolu_patch1', name: 'apply_patch', args: [JSON.stringify({ input: PATCH })] } },
      ),
    );
    const pipeline = createPipeline({
      endpoints: [
        { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY },
        { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY },
      ],
      models: { codex: [{ endpoint: 'openai', model: 'gpt-5-codex' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
      providers: [openaiProvider, anthropicProvider],
    });
    const { origin } = await startGateway(pipeline);

    const first = await raw(origin, '/v1/responses', { body: JSON.stringify(codexRequest()) });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-switchyard-dropped')).toBe('include, prompt_cache_key, client_metadata, tool:web_search, reasoning.summary, text.verbosity');
    expect(openai.requests).toHaveLength(1);
    const sent = JSON.parse(claude.requests[0]!.body);
    expect(sent.tools.map((t: any) => t.name)).toEqual(['shell', 'apply_patch', 'collaboration__send_message']);
    expect(sent.tools[1].description).toContain(APPLY_PATCH_GRAMMAR);
    expect(sent.tools[1].input_schema).toMatchObject({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    const done = sseEvents(first.text).find((e) => e.type === 'response.completed');
    const call = done.response.output.find((item: any) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ type: 'custom_tool_call', call_id: 'toolu_patch1', name: 'apply_patch', input: PATCH });
    expect(sseEvents(first.text).find((e) => e.type === 'response.custom_tool_call_input.done')).toMatchObject({ input: PATCH });

    // Codex runs the patch and sends the call and its output back.
    const second = await raw(origin, '/v1/responses', { body: JSON.stringify(codexRequest([{ type: 'custom_tool_call', id: call.id, call_id: call.call_id, name: 'apply_patch', input: PATCH, status: 'completed' }, { type: 'custom_tool_call_output', call_id: call.call_id, output: 'Success. Updated the following files:\nA hello.txt' }])) });
    expect(second.status).toBe(200);
    expect(second.text).toContain('Created hello.txt.');
    const followUp = JSON.parse(claude.requests[1]!.body);
    const turns = followUp.messages.slice(-2);
    expect(turns[0]).toMatchObject({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_patch1', name: 'apply_patch', input: { input: PATCH } }] });
    expect(turns[1]).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_patch1', content: 'Success. Updated the following files:\nA hello.txt' }] });
  });

  it('a namespaced function call comes back with its namespace, and a non-streamed answer too', async () => {
    const openai = await vendor(fails(503, 'The server is overloaded'));
    const claude = await vendor(anthropicVendor(() => ({ call: { id: 'toolu_msg1', name: 'collaboration__send_message', args: ['{"message":"hi"}'] } })));
    const pipeline = createPipeline({
      endpoints: [
        { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: VENDOR_KEY },
        { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEY },
      ],
      models: { codex: [{ endpoint: 'openai', model: 'gpt-5-codex' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
      providers: [openaiProvider, anthropicProvider],
    });
    const { origin } = await startGateway(pipeline);
    const answer = await raw(origin, '/v1/responses', { body: JSON.stringify({ ...codexRequest(), stream: false }) });
    expect(answer.status).toBe(200);
    expect(answer.json.output.find((item: any) => item.type === 'function_call')).toMatchObject({ name: 'send_message', namespace: 'collaboration', call_id: 'toolu_msg1', arguments: '{"message":"hi"}' });
  });
});
