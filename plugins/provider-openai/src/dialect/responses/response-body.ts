/**
 * Unified answers → Responses API `response` objects: the JSON answer, and the snapshots the
 * stream's lifecycle events carry. The request's settings are echoed the way OpenAI echoes them
 * (instructions, tools, tool_choice, text format…), so SDK helpers that read them back work.
 */
import type { ChatResponse, FinishReason, ResponseMessage, Usage } from '@switchyard/core';
import { newId } from './ids.js';
import { callItemOf, isCustomTool, type ToolNames } from './tool-names.js';
import { vendorStateItem } from './vendor-state.js';
import type { Json, OutputMessage, ReasoningItem, ResponseItem, ResponseObject, ResponseStatus, ResponseUsage } from './wire-types.js';

/** The request settings a response reports back, with OpenAI's defaults for those the client left out. */
export type RequestEcho = Json;

const orNull = (value: unknown) => (value === undefined ? null : value);

export function requestEcho(body: Json, store: boolean): RequestEcho {
  return {
    instructions: orNull(body.instructions),
    max_output_tokens: orNull(body.max_output_tokens),
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: orNull(body.previous_response_id),
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    user: orNull(body.user),
    metadata: body.metadata ?? {},
  };
}

export interface ResponseHead {
  id: string;
  created_at: number;
  model: string;
}

export interface ResponseEnd {
  status: ResponseStatus;
  output: ResponseItem[];
  usage: ResponseUsage | null;
  error?: ResponseObject['error'];
  incomplete?: ResponseObject['incomplete_details'];
}

/** A `response` object, fields in OpenAI's order. */
export function responseObject(head: ResponseHead, echo: RequestEcho, end: ResponseEnd): ResponseObject {
  return {
    id: head.id,
    object: 'response',
    created_at: head.created_at,
    status: end.status,
    background: false,
    error: end.error ?? null,
    incomplete_details: end.incomplete ?? null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: head.model,
    output: end.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    reasoning: echo.reasoning,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: echo.truncation,
    usage: end.usage,
    user: echo.user,
    metadata: echo.metadata,
  } as ResponseObject;
}

export function responseUsage(usage: Usage | undefined): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0, cache_write_tokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** How an answer that stopped for `reason` ends: completed, incomplete (and why), or failed. */
export function endingOf(reason: FinishReason | null | undefined): Pick<ResponseEnd, 'status' | 'error' | 'incomplete'> {
  switch (reason) {
    case 'length':
      return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
    case 'content_filter':
      return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
    case 'error':
      return { status: 'failed', error: { code: 'server_error', message: 'the model stopped with an error' } };
    default:
      return { status: 'completed' };
  }
}

export const messageItem = (id: string, text: string, status: OutputMessage['status'], refusal?: string): OutputMessage => ({
  id,
  type: 'message',
  status,
  content: refusal !== undefined ? [{ type: 'refusal', refusal }] : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  role: 'assistant',
});

export const reasoningItem = (id: string, text: string, status: ReasoningItem['status']): ReasoningItem => ({ id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }], status });


/** The output items of one answer: its reasoning, its text (or refusal), its function calls, and the vendor state its next turn needs. */
export function outputItemsOf(message: ResponseMessage, itemStatus: OutputMessage['status'], toolNames?: ToolNames): ResponseItem[] {
  const items: ResponseItem[] = [];
  if (message.reasoning_content) items.push(reasoningItem(newId('rs'), message.reasoning_content, itemStatus));
  if (typeof message.content === 'string' && message.content.length > 0) items.push(messageItem(newId('msg'), message.content, itemStatus));
  else if (typeof message.refusal === 'string' && message.refusal.length > 0) items.push(messageItem(newId('msg'), '', itemStatus, message.refusal));
  for (const call of message.tool_calls ?? []) items.push(callItemOf(newId(isCustomTool(call.function.name, toolNames) ? 'ctc' : 'fc'), call.id, call.function.name, call.function.arguments, itemStatus, toolNames));
  if (carriesState(message.reasoning_content !== undefined && message.reasoning_content.length > 0, (message.tool_calls?.length ?? 0) > 0, message.providerMetadata)) items.push(vendorStateItem(message.providerMetadata!));
  return items;
}

/** Only a turn with reasoning or function calls has state a vendor wants back (signed thinking, thought signatures). */
export function carriesState(reasoned: boolean, called: boolean, metadata: ResponseMessage['providerMetadata']): boolean {
  return (reasoned || called) && metadata !== undefined && Object.keys(metadata).length > 0;
}

/** A unified answer as a `response` object (for answers that did not come from a Responses API vendor as they are). */
export function responseBody(response: ChatResponse, echo: RequestEcho, toolNames?: ToolNames): ResponseObject {
  const choice = response.choices[0];
  const ending = endingOf(choice?.finish_reason);
  const output = choice ? outputItemsOf(choice.message, ending.status === 'completed' ? 'completed' : 'incomplete', toolNames) : [];
  return responseObject({ id: newId('resp'), created_at: response.created || Math.floor(Date.now() / 1000), model: response.model }, echo, {
    status: ending.status,
    output,
    usage: responseUsage(response.usage),
    error: ending.error,
    incomplete: ending.incomplete,
  });
}
