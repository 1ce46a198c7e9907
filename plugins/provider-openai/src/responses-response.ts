/**
 * A Responses API `response` object → the unified ChatResponse: the text of its message items,
 * its function calls, its reasoning (summaries, or the reasoning text when sent), usage and how
 * it ended. The vendor's own text is kept with it (wire-body.ts), so a Responses client gets
 * the answer as OpenAI wrote it, items the unified shape does not model included.
 */
import { SwitchyardError, type Candidate, type ChatResponse, type FinishReason, type ProviderHttpResponse, type ToolCall, type Usage } from '@switchyard/core';
import { keepWireBody, OPENAI_RESPONSES } from '@switchyard/core/wire';
import { type ErrorRule } from '@switchyard/core/internal';
import { classifyResponseFailure } from './responses-errors.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function isResponseObject(json: unknown): json is Json {
  return isObject(json) && json.object === 'response';
}

/** Output item types of the tools OpenAI runs itself and bills per call → the `Price.perCall` kind. */
const HOSTED_TOOL_CALLS: Readonly<Record<string, string>> = { web_search_call: 'web_search', file_search_call: 'file_search', code_interpreter_call: 'code_interpreter' };

/**
 * The hosted tool calls among a response's output items, by kind. Code Interpreter bills per
 * container, not per call: its calls count once per distinct `container_id`.
 */
export function hostedToolCalls(output: unknown): Record<string, number> | undefined {
  if (!Array.isArray(output)) return undefined;
  let calls: Record<string, number> | undefined;
  let containers: Set<unknown> | undefined;
  for (const item of output) {
    if (!isObject(item) || typeof item.type !== 'string') continue;
    const kind = HOSTED_TOOL_CALLS[item.type];
    if (kind === undefined) continue;
    if (kind === 'code_interpreter' && item.container_id !== undefined) {
      containers ??= new Set();
      if (containers.has(item.container_id)) continue;
      containers.add(item.container_id);
    }
    calls ??= {};
    calls[kind] = (calls[kind] ?? 0) + 1;
  }
  return calls;
}

/** Responses API usage → unified usage, with the hosted tool calls of `output` (billed per call). */
export function responsesUsage(usage: unknown, items?: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const prompt = count(usage.input_tokens);
  const completion = count(usage.output_tokens);
  const out: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : prompt + completion };
  const input = usage.input_tokens_details;
  if (isObject(input) && typeof input.cached_tokens === 'number') out.prompt_tokens_details = { cached_tokens: input.cached_tokens };
  const output = usage.output_tokens_details;
  if (isObject(output) && typeof output.reasoning_tokens === 'number') out.completion_tokens_details = { reasoning_tokens: output.reasoning_tokens };
  const tools = hostedToolCalls(items);
  if (tools) out.server_tool_calls = tools;
  return out;
}

/** How a response that was not `failed` ended, in unified terms. */
export function finishOf(response: Json, hasCalls: boolean): FinishReason {
  if (response.status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === 'content_filter' ? 'content_filter' : 'length';
  }
  return hasCalls ? 'tool_calls' : 'stop';
}

/** The texts of a reasoning item: its reasoning text when the model sent it, else its summaries. */
export function reasoningTextOf(item: Json): string {
  const list = Array.isArray(item.content) && item.content.length > 0 ? item.content : item.summary;
  if (!Array.isArray(list)) return '';
  return list
    .map((entry) => (isObject(entry) && typeof entry.text === 'string' ? entry.text : ''))
    .filter((text) => text.length > 0)
    .join('\n\n');
}

export function parseResponsesResponse(res: ProviderHttpResponse, providerId: string, target: Pick<Candidate, 'model' | 'apiKey'>, rules?: readonly ErrorRule[]): ChatResponse {
  const body = res.json as Json;
  if (body.status === 'failed') throw classifyResponseFailure(providerId, body.error, target.apiKey, rules);
  if (!Array.isArray(body.output) || (body.status !== undefined && body.status !== 'completed' && body.status !== 'incomplete')) {
    throw new SwitchyardError('server', `${providerId} answered ${res.status} with a response that is not finished (status ${String(body.status)})`, { status: res.status, provider: providerId });
  }
  let content = '';
  let refusal = '';
  let reasoning = '';
  const calls: ToolCall[] = [];
  for (const item of body.output as unknown[]) {
    if (!isObject(item)) continue;
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content) {
        if (!isObject(part)) continue;
        if (part.type === 'output_text' && typeof part.text === 'string') content += part.text;
        else if (part.type === 'refusal' && typeof part.refusal === 'string') refusal += part.refusal;
      }
    } else if (item.type === 'function_call') {
      calls.push({ id: String(item.call_id ?? item.id ?? `call_${calls.length}`), type: 'function', function: { name: String(item.name ?? ''), arguments: typeof item.arguments === 'string' ? item.arguments : '' } });
    } else if (item.type === 'reasoning') {
      const text = reasoningTextOf(item);
      if (text) reasoning = reasoning ? `${reasoning}\n\n${text}` : text;
    }
  }
  const usage = responsesUsage(body.usage, body.output);
  const response: ChatResponse = {
    id: typeof body.id === 'string' ? body.id : '',
    object: 'chat.completion',
    created: typeof body.created_at === 'number' ? body.created_at : 0,
    model: typeof body.model === 'string' && body.model.length > 0 ? body.model : target.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content.length > 0 || (calls.length === 0 && refusal.length === 0) ? content : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...(refusal ? { refusal } : {}),
          ...(reasoning ? { reasoning_content: reasoning } : {}),
        },
        finish_reason: finishOf(body, calls.length > 0),
      },
    ],
    ...(usage ? { usage } : {}),
  };
  const meta: Json = {};
  for (const key of ['status', 'incomplete_details', 'service_tier'] as const) if (body[key] !== undefined && body[key] !== null) meta[key] = body[key];
  if (Object.keys(meta).length > 0) response.providerMetadata = { [providerId]: meta };
  // The parsed body too: the Responses dialect stores the vendor's object and would parse the text again.
  keepWireBody(response, { format: OPENAI_RESPONSES, text: res.text, json: body });
  return response;
}
