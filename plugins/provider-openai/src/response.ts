/** A non-streaming Chat Completions body → the unified ChatResponse. */
import { SwitchyardError, type Candidate, type ChatChoice, type ChatResponse, type ProviderHttpResponse, type ToolCall } from '@switchyard/core';
import { keepWireBody, OPENAI_CHAT_COMPLETION } from '@switchyard/core/wire';
import { classifyStreamError } from './classify-error.js';
import { INSUFFICIENT_RESOURCE, mapFinishReason } from './finish-reason.js';
import { normalizeUsage } from './usage.js';
import { asWireBody, vendorExtras, type WireBody, type WireChoice, type WireMessage, type WireToolCall } from './wire-types.js';

/** Choice fields the unified shape carries; the rest (content_filter_results, logprobs, stop_reason…) is metadata. */
const CHOICE_FIELDS = new Set(['index', 'message', 'delta', 'finish_reason']);

export function reasoningOf(message: WireMessage): string | undefined {
  const text = message.reasoning_content ?? message.reasoning;
  return typeof text === 'string' && text.length > 0 ? text : undefined;
}

function toolCallsOf(calls: WireToolCall[] | null | undefined, responseId: string): ToolCall[] | undefined {
  if (!Array.isArray(calls) || calls.length === 0) return undefined;
  return calls.map((call, position) => ({
    id: call.id || syntheticToolCallId(responseId, call.index ?? position),
    type: 'function',
    function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' },
  }));
}

/** Some compatible servers omit tool call ids; the next turn needs one to answer the call. */
export function syntheticToolCallId(responseId: string, index: number): string {
  return `call_${responseId || 'x'}_${index}`;
}

function choiceMetadata(choice: WireChoice): Record<string, unknown> | undefined {
  let meta: Record<string, unknown> | undefined;
  for (const key in choice) {
    const value = (choice as Record<string, unknown>)[key];
    if (!CHOICE_FIELDS.has(key) && value !== null && value !== undefined) (meta ??= {})[key] = value;
  }
  const message = choice.message ?? {};
  if (Array.isArray(message.annotations) && message.annotations.length > 0) (meta ??= {}).annotations = message.annotations;
  return meta;
}

function toChoice(choice: WireChoice, position: number, responseId: string, providerId: string): ChatChoice {
  const message = choice.message ?? {};
  const reasoning = reasoningOf(message);
  const toolCalls = toolCallsOf(message.tool_calls, responseId);
  const meta = choiceMetadata(choice);
  const raw = choice.finish_reason;
  return {
    index: typeof choice.index === 'number' ? choice.index : position,
    message: {
      role: 'assistant',
      content: typeof message.content === 'string' ? message.content : null,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
      ...(typeof message.refusal === 'string' ? { refusal: message.refusal } : {}),
      ...(reasoning ? { reasoning_content: reasoning } : {}),
      ...(meta ? { providerMetadata: { [providerId]: meta } } : {}),
    },
    finish_reason: typeof raw === 'string' ? mapFinishReason(raw) : null,
  };
}

export function parseChatResponse(res: ProviderHttpResponse, providerId: string, target: Pick<Candidate, 'model' | 'apiKey'>): ChatResponse {
  const apiKey = target.apiKey;
  const body = asWireBody(res.json);
  // Some compatible servers answer 200 with an error body instead of a 4xx/5xx.
  if (body?.error !== undefined || body?.object === 'error') throw classifyStreamError(providerId, res.json, apiKey);
  if (!body || !Array.isArray(body.choices)) {
    throw new SwitchyardError('server', `${providerId} answered ${res.status} with a body that is not a chat completion (no choices)`, { status: res.status, provider: providerId });
  }
  if (body.choices.some((c) => c?.finish_reason === INSUFFICIENT_RESOURCE)) {
    throw new SwitchyardError('overloaded', `${providerId} stopped the answer: ${INSUFFICIENT_RESOURCE}`, { status: res.status, vendorCode: INSUFFICIENT_RESOURCE, provider: providerId, retryable: true });
  }
  const id = typeof body.id === 'string' ? body.id : '';
  const extras = vendorExtras(body);
  const usage = normalizeUsage(body.usage);
  const response: ChatResponse = {
    id,
    object: 'chat.completion',
    created: typeof body.created === 'number' ? body.created : 0,
    model: typeof body.model === 'string' && body.model.length > 0 ? body.model : target.model,
    choices: body.choices.map((choice, i) => toChoice(choice ?? {}, i, id, providerId)),
    ...(usage ? { usage } : {}),
  };
  if (typeof extras.system_fingerprint === 'string') response.system_fingerprint = extras.system_fingerprint;
  const usageExtras = usageMetadata(body.usage);
  if (usageExtras) extras.usage = usageExtras;
  if (Object.keys(extras).length > 0) response.providerMetadata = { [providerId]: extras };
  if (forwardable(body)) keepWireBody(response, { format: OPENAI_CHAT_COMPLETION, text: res.text });
  return response;
}

const OPENAI_FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

const isCount = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/**
 * The vendor's body is already what an OpenAI client expects, so it can be sent on as it came:
 * every field the encoder would fill or normalise is there and standard (ids, finish reasons,
 * tool call ids, usage totals, an assistant message). Anything else is re-encoded.
 */
function forwardable(body: WireBody): boolean {
  if (body.object !== 'chat.completion' || typeof body.id !== 'string' || body.id.length === 0) return false;
  if (typeof body.model !== 'string' || body.model.length === 0 || typeof body.created !== 'number') return false;
  const usage = body.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } | null | undefined;
  if (usage !== undefined && (usage === null || !isCount(usage.prompt_tokens) || !isCount(usage.completion_tokens) || !isCount(usage.total_tokens))) return false;
  const choices = body.choices!;
  if (choices.length === 0) return false;
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i];
    if (!choice || choice.index !== i) return false;
    if (choice.finish_reason !== null && !OPENAI_FINISH_REASONS.has(choice.finish_reason as string)) return false;
    const message = choice.message;
    if (!message || message.role !== 'assistant' || message.reasoning !== undefined) return false;
    if (message.content !== null && typeof message.content !== 'string') return false;
    if (message.tool_calls !== undefined && (!Array.isArray(message.tool_calls) || message.tool_calls.some((call) => !call?.id || call.type !== 'function'))) return false;
  }
  return true;
}

/** DeepSeek's cache hit/miss split and other vendor usage counters the unified shape drops. */
export function usageMetadata(usage: unknown): Record<string, unknown> | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const keep = ['prompt_cache_hit_tokens', 'prompt_cache_miss_tokens', 'cost'];
  const out: Record<string, unknown> = {};
  for (const key of keep) if ((usage as Record<string, unknown>)[key] !== undefined) out[key] = (usage as Record<string, unknown>)[key];
  return Object.keys(out).length > 0 ? out : undefined;
}
