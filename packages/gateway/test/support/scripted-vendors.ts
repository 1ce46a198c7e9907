/**
 * Loopback vendors that answer in their own wire format (OpenAI Responses, Chat Completions,
 * Anthropic Messages, Gemini), JSON or SSE as asked, with a turn a script picks from the
 * request they received: text, or a function call. The weather script calls `get_weather`
 * until the request carries its result, then answers with it: a whole tool round trip.
 */
import type { Handler } from './harness.js';

/** What the vendor answers: text or a call, after reasoning when given (Anthropic signs it). */
export type Turn = ({ text: string[] } | { call: { id: string; name: string; args: string[] } }) & { reasoning?: string[]; signature?: string };
export type Script = (body: string) => Turn;

export const WEATHER_RESULT = '18C and sunny';
export const weatherScript: Script = (body) =>
  body.includes(WEATHER_RESULT) ? { text: ['It is ', WEATHER_RESULT, ' in Paris.'] } : { call: { id: 'call_w1', name: 'get_weather', args: ['{"city":', '"Paris"}'] } };

export const textScript =
  (...text: string[]): Script =>
  () => ({ text });

const USAGE = { input: 11, output: 7 };

function sse(res: Parameters<Handler>[1], events: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.join(''));
}

function json(res: Parameters<Handler>[1], body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/* ---------------------------------------------------------------- OpenAI Responses */

const responsesUsage = { input_tokens: USAGE.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: USAGE.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE.input + USAGE.output };

/** Event fields with the response object's `id` moved to its end. */
function withIdLast(fields: Record<string, unknown>): Record<string, unknown> {
  const response = fields.response as Record<string, unknown> | undefined;
  if (!response) return fields;
  const { id, ...rest } = response;
  return { ...fields, response: { ...rest, id } };
}

/** A response object echoing the request's settings, as OpenAI does. */
function responseOf(request: Record<string, unknown>, model: string, status: string, output: unknown[], usage: unknown = null) {
  return { id: 'resp_vendor1', object: 'response', created_at: 1_770_000_000, status, error: null, incomplete_details: null, instructions: request.instructions ?? null, model, output, parallel_tool_calls: true, store: false, tools: request.tools ?? [], usage, metadata: request.metadata ?? {} };
}

/** `keysReordered`: each event's fields in another order than OpenAI's (`sequence_number` first, the response's `id` last), as a proxy or another implementation may write them. */
export function responsesVendor(script: Script, model = 'gpt-upstream', options: { keysReordered?: boolean } = {}): Handler {
  return (_req, res, raw) => {
    const body = JSON.parse(raw) as Record<string, unknown>;
    const turn = script(raw);
    const item =
      'call' in turn
        ? { id: 'fc_vendor1', type: 'function_call', status: 'completed', arguments: turn.call.args.join(''), call_id: turn.call.id, name: turn.call.name }
        : { id: 'msg_vendor1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: turn.text.join('') }] };
    if (!body.stream) return json(res, responseOf(body, model, 'completed', [item], responsesUsage));
    let seq = 0;
    const ev = (type: string, fields: Record<string, unknown>) => {
      const data = options.keysReordered ? { sequence_number: seq++, type, ...withIdLast(fields) } : { type, sequence_number: seq++, ...fields };
      return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    };
    const events = [ev('response.created', { response: responseOf(body, model, 'in_progress', []) }), ev('response.in_progress', { response: responseOf(body, model, 'in_progress', []) })];
    if ('call' in turn) {
      events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } }));
      for (const delta of turn.call.args) events.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta }));
      events.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: turn.call.args.join(''), name: turn.call.name }));
    } else {
      events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }));
      events.push(ev('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }));
      for (const delta of turn.text) events.push(ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta, logprobs: [] }));
      events.push(ev('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: turn.text.join(''), logprobs: [] }));
      events.push(ev('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: turn.text.join('') } }));
    }
    events.push(ev('response.output_item.done', { output_index: 0, item }));
    events.push(ev('response.completed', { response: responseOf(body, model, 'completed', [item], responsesUsage) }));
    sse(res, events);
  };
}

/* ---------------------------------------------------------------- Chat Completions (DeepSeek and the compatible family) */

export function chatVendor(script: Script, model = 'deepseek-chat'): Handler {
  return (_req, res, raw) => {
    const body = JSON.parse(raw) as { stream?: boolean };
    const turn = script(raw);
    const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
    const finish = 'call' in turn ? 'tool_calls' : 'stop';
    if (!body.stream) {
      const message = 'call' in turn ? { role: 'assistant', content: null, tool_calls: [{ id: turn.call.id, type: 'function', function: { name: turn.call.name, arguments: turn.call.args.join('') } }] } : { role: 'assistant', content: turn.text.join('') };
      if (turn.reasoning) Object.assign(message, { reasoning_content: turn.reasoning.join('') });
      return json(res, { id: 'chatcmpl-v1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    const chunk = (delta: unknown, finishReason: string | null = null, extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id: 'chatcmpl-v1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
    const events = [chunk({ role: 'assistant', content: '' })];
    for (const reasoning of turn.reasoning ?? []) events.push(chunk({ reasoning_content: reasoning }));
    if ('call' in turn) {
      events.push(chunk({ tool_calls: [{ index: 0, id: turn.call.id, type: 'function', function: { name: turn.call.name, arguments: '' } }] }));
      for (const args of turn.call.args) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
    } else for (const text of turn.text) events.push(chunk({ content: text }));
    events.push(chunk({}, finish, { usage }), 'data: [DONE]\n\n');
    sse(res, events);
  };
}

/* ---------------------------------------------------------------- Anthropic Messages */

export function anthropicVendor(script: Script, model = 'claude-upstream'): Handler {
  return (_req, res, raw) => {
    const body = JSON.parse(raw) as { stream?: boolean };
    const turn = script(raw);
    const stop = 'call' in turn ? 'tool_use' : 'end_turn';
    const thinking = turn.reasoning ? [{ type: 'thinking', thinking: turn.reasoning.join(''), signature: turn.signature ?? '' }] : [];
    if (!body.stream) {
      const content = [...thinking, ...('call' in turn ? [{ type: 'tool_use', id: turn.call.id, name: turn.call.name, input: JSON.parse(turn.call.args.join('')) }] : [{ type: 'text', text: turn.text.join('') }])];
      return json(res, { id: 'msg_a1', type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: USAGE.input, output_tokens: USAGE.output } });
    }
    const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const events = [ev('message_start', { message: { id: 'msg_a1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } })];
    const index = turn.reasoning ? 1 : 0;
    if (turn.reasoning) {
      events.push(ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const thought of turn.reasoning) events.push(ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: thought } }));
      events.push(ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: turn.signature ?? '' } }), ev('content_block_stop', { index: 0 }));
    }
    if ('call' in turn) {
      events.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: turn.call.id, name: turn.call.name, input: {} } }));
      for (const partial of turn.call.args) events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } }));
    } else {
      events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of turn.text) events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    }
    events.push(ev('content_block_stop', { index }), ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: USAGE.output } }), ev('message_stop', {}));
    sse(res, events);
  };
}

/* ---------------------------------------------------------------- Gemini */

export function geminiVendor(script: Script, model = 'gemini-upstream'): Handler {
  return (req, res, raw) => {
    const stream = (req.url ?? '').includes(':streamGenerateContent');
    const turn = script(raw);
    const usageMetadata = { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output };
    const candidate = (parts: unknown[], finishReason?: string) => ({ candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }], ...(finishReason ? { usageMetadata } : {}), modelVersion: model });
    if ('call' in turn) {
      const answer = candidate([{ functionCall: { name: turn.call.name, args: JSON.parse(turn.call.args.join('')) } }], 'STOP');
      return stream ? sse(res, [`data: ${JSON.stringify(answer)}\n\n`]) : json(res, answer);
    }
    if (!stream) return json(res, candidate([{ text: turn.text.join('') }], 'STOP'));
    sse(
      res,
      turn.text.map((text, i) => `data: ${JSON.stringify(candidate([{ text }], i === turn.text.length - 1 ? 'STOP' : undefined))}\n\n`),
    );
  };
}
