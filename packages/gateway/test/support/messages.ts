/**
 * The Messages ingress under test: the gateway with the official Anthropic SDK as its client,
 * and scripted loopback vendors (Anthropic, OpenAI, Gemini, an OpenAI-compatible preset) that
 * answer one vendor-neutral script in their own wire format, JSON or SSE.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createPipeline, type AttemptTimeouts, type Capability, type EndpointConfig, type Pipeline, type PipelineOptions } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiProvider } from '@switchyard/provider-gemini';
import providers from '@switchyard/provider-openai';
import { GATEWAY_KEY, startGateway, vendor, type Harness, type Loopback } from './harness.js';
import type { GatewayOptions } from '../../src/index.js';

export const MODEL = 'claude-sonnet-4-5';
export const VENDOR_KEYS = { anthropic: 'sk-ant-vendor-7Hq2Lp9Rk4Wz8Nc3', openai: 'sk-openai-vendor-Jf5gS8aPq2Lm7X', gemini: 'AIza-gemini-vendor-Mw3Zk8Vb1Hq6', deepseek: 'sk-deepseek-vendor-Qx7vT2mLp9Rk' } as const;

export type VendorKind = keyof typeof VENDOR_KEYS;

export interface MessagesHarness extends Harness {
  anthropic: Anthropic;
}

export async function startMessagesGateway(pipeline: Pipeline, options: Partial<GatewayOptions> = {}): Promise<MessagesHarness> {
  const harness = await startGateway(pipeline, options);
  return { ...harness, anthropic: new Anthropic({ baseURL: harness.origin, apiKey: GATEWAY_KEY, maxRetries: 0 }) };
}

export interface Deployment {
  name: string;
  kind: VendorKind;
  url: string;
  capabilities?: Capability[];
  timeouts?: Partial<AttemptTimeouts>;
}

function endpointOf(d: Deployment): EndpointConfig {
  return { name: d.name, provider: d.kind, baseUrl: d.url, apiKey: VENDOR_KEYS[d.kind], ...(d.timeouts ? { timeouts: d.timeouts } : {}) };
}

const UPSTREAM_MODEL: Record<VendorKind, string> = { anthropic: 'claude-sonnet-4-5-20250929', openai: 'gpt-4.1', gemini: 'gemini-2.5-flash', deepseek: 'deepseek-chat' };

/** A pipeline whose logical model `claude-sonnet-4-5` is served by these deployments, in order. */
export function pipelineOf(deployments: Deployment[], extra: Partial<PipelineOptions> = {}): Pipeline {
  return createPipeline({
    endpoints: deployments.map(endpointOf),
    models: { [MODEL]: deployments.map((d) => ({ endpoint: d.name, model: UPSTREAM_MODEL[d.kind], ...(d.capabilities ? { capabilities: d.capabilities } : {}) })) },
    providers: [anthropicProvider, geminiProvider, ...providers],
    ...extra,
  });
}

/* ---------------------------------------------------------------- the script */

/** What a vendor answers, in no vendor's format. */
export interface Script {
  thinking?: string;
  /** Anthropic only: the thinking block's signature. */
  signature?: string;
  text?: string;
  tool?: { id: string; name: string; input: Record<string, unknown> };
}

/** The script for the request the vendor received (parsed JSON body). */
export type Scripted = (body: any) => Script;

/** Text pieces: a stream sends them as separate deltas. */
function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sse = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Anthropic's event stream for a script, exactly as its wire writes it. */
export function anthropicEvents(script: Script, model = UPSTREAM_MODEL.anthropic): string {
  let out = sse('message_start', { type: 'message_start', message: { id: 'msg_01Vendor', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 321, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 1 } } });
  let index = 0;
  if (script.thinking) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    out += 'event: ping\ndata: {"type": "ping"}\n\n';
    for (const piece of pieces(script.thinking)) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
    out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: script.signature ?? 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  if (script.text) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of pieces(script.text)) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  if (script.tool) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: script.tool.id, name: script.tool.name, input: {} } });
    out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of pieces(JSON.stringify(script.tool.input), 9)) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
  }
  out += sse('message_delta', { type: 'message_delta', delta: { stop_reason: script.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { input_tokens: 321, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 42 } });
  return `${out}event: message_stop\ndata: {"type":"message_stop"}\n\n`;
}

export function anthropicMessage(script: Script, model = UPSTREAM_MODEL.anthropic): Record<string, unknown> {
  const content: unknown[] = [];
  if (script.thinking) content.push({ type: 'thinking', thinking: script.thinking, signature: script.signature ?? 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' });
  if (script.text) content.push({ type: 'text', text: script.text });
  if (script.tool) content.push({ type: 'tool_use', ...script.tool });
  return { id: 'msg_01Vendor', type: 'message', role: 'assistant', model, content, stop_reason: script.tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 321, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 42 } };
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) {
  return { id: 'chatcmpl-vendor', object: 'chat.completion.chunk', created: 1733000000, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

/** Chat Completions chunks for a script (reasoning as `reasoning_content`, as DeepSeek and compatible servers send it). */
export function openaiEvents(script: Script, model: string): string {
  const chunks: unknown[] = [chunk(model, { role: 'assistant', content: '' })];
  if (script.thinking) for (const piece of pieces(script.thinking)) chunks.push(chunk(model, { reasoning_content: piece }));
  if (script.text) for (const piece of pieces(script.text)) chunks.push(chunk(model, { content: piece }));
  if (script.tool) {
    chunks.push(chunk(model, { tool_calls: [{ index: 0, id: script.tool.id, type: 'function', function: { name: script.tool.name, arguments: '' } }] }));
    for (const piece of pieces(JSON.stringify(script.tool.input), 9)) chunks.push(chunk(model, { tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  chunks.push(chunk(model, {}, script.tool ? 'tool_calls' : 'stop'));
  chunks.push({ id: 'chatcmpl-vendor', object: 'chat.completion.chunk', created: 1733000000, model, choices: [], usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340, prompt_tokens_details: { cached_tokens: 100 } } });
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

export function openaiCompletion(script: Script, model: string): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: script.text ?? null };
  if (script.thinking) message.reasoning_content = script.thinking;
  if (script.tool) message.tool_calls = [{ id: script.tool.id, type: 'function', function: { name: script.tool.name, arguments: JSON.stringify(script.tool.input) } }];
  return { id: 'chatcmpl-vendor', object: 'chat.completion', created: 1733000000, model, choices: [{ index: 0, message, finish_reason: script.tool ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 } };
}

function geminiParts(script: Script): unknown[] {
  const parts: unknown[] = [];
  if (script.thinking) parts.push({ text: script.thinking, thought: true });
  if (script.text) parts.push({ text: script.text });
  if (script.tool) parts.push({ functionCall: { name: script.tool.name, args: script.tool.input } });
  return parts;
}

const GEMINI_USAGE = { promptTokenCount: 300, candidatesTokenCount: 40, totalTokenCount: 340 };

export function geminiResponse(script: Script): Record<string, unknown> {
  return { candidates: [{ content: { role: 'model', parts: geminiParts(script) }, finishReason: 'STOP', index: 0 }], usageMetadata: GEMINI_USAGE, modelVersion: UPSTREAM_MODEL.gemini, responseId: 'gemresp1' };
}

/** Gemini's SSE: one chunk per part, the finish and usage on the last (CRLF framing, as recorded). */
export function geminiEvents(script: Script): string {
  const parts = geminiParts(script);
  return parts
    .map((part, i) => {
      const last = i === parts.length - 1;
      const data = { candidates: [{ content: { role: 'model', parts: [part] }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }], ...(last ? { usageMetadata: GEMINI_USAGE } : {}), modelVersion: UPSTREAM_MODEL.gemini, responseId: 'gemresp1' };
      return `data: ${JSON.stringify(data)}\r\n\r\n`;
    })
    .join('');
}

/** A loopback vendor of this kind answering `scripted` in its own wire format. */
export async function scriptedVendor(kind: VendorKind, scripted: Scripted): Promise<Loopback> {
  return vendor((req, res, text) => {
    const body = JSON.parse(text);
    const script = scripted(body);
    const streaming = kind === 'gemini' ? (req.url ?? '').includes(':streamGenerateContent') : body.stream === true;
    const model = kind === 'gemini' ? UPSTREAM_MODEL.gemini : body.model;
    if (streaming) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(kind === 'anthropic' ? anthropicEvents(script, model) : kind === 'gemini' ? geminiEvents(script) : openaiEvents(script, model));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(kind === 'anthropic' ? anthropicMessage(script, model) : kind === 'gemini' ? geminiResponse(script) : openaiCompletion(script, model)));
    }
  });
}

/** Whether the request a vendor received carries a tool's result (the second leg of a tool round trip). */
export function hasToolResult(kind: VendorKind, body: any): boolean {
  if (kind === 'anthropic') return body.messages.some((m: any) => Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_result'));
  if (kind === 'gemini') return body.contents.some((c: any) => c.parts.some((p: any) => p.functionResponse));
  return body.messages.some((m: any) => m.role === 'tool');
}

/* ---------------------------------------------------------------- a coding agent's request */

export const AGENT_TOOLS = [
  {
    name: 'Bash',
    description: 'Executes a given bash command in a persistent shell session.',
    input_schema: { type: 'object', properties: { command: { type: 'string', description: 'The command to execute' }, timeout: { type: 'number' } }, required: ['command'], additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' },
  },
  {
    name: 'Read',
    description: 'Reads a file from the local filesystem.',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'], additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' },
    cache_control: { type: 'ephemeral' },
  },
];

/** The shape of a Claude Code turn: system blocks with cache_control, tools, thinking, metadata, streaming. */
export function agentRequest(messages: unknown[], extra: Record<string, unknown> = {}): any {
  return {
    model: MODEL,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'You are an interactive CLI tool that helps users with software engineering tasks.', cache_control: { type: 'ephemeral' } },
    ],
    messages,
    tools: AGENT_TOOLS,
    thinking: { type: 'enabled', budget_tokens: 10000 },
    metadata: { user_id: 'user_4f1c_account__session_9d2e' },
    ...extra,
  };
}

export const AGENT_HEADERS = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14' };

export const firstTurn = [{ role: 'user', content: [{ type: 'text', text: '<system-reminder>This is a reminder.</system-reminder>' }, { type: 'text', text: 'Run the tests', cache_control: { type: 'ephemeral' } }] }];
