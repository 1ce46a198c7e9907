/**
 * The OpenAI Responses API (`POST /responses`): `response` objects, and typed `event:` + `data:`
 * SSE events with sequence numbers (`response.created` … `response.completed`), no `[DONE]`.
 * Errors before the stream have the same `{error:{…}}` bodies as Chat Completions; a failure
 * inside the stream is a `response.failed` event.
 */
import { lastMessageRole, pathUnder, PROMPT_TOKENS, type VendorWire, type WireContext } from '../vendor-wire.js';
import { openaiWire } from './openai.js';

const CREATED = 1_770_933_892;
/** Events before the first delta: created, in_progress, output_item.added, content_part.added. */
const EVENTS_BEFORE_TEXT = 4;

const responseId = (ctx: WireContext) => `resp_chaos${ctx.index}`;
const messageId = (ctx: WireContext) => `msg_chaos${ctx.index}`;

function event(type: string, sequence: number, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify(Object.assign({ type, sequence_number: sequence }, fields))}\n\n`;
}

function usage(outputTokens: number) {
  return { input_tokens: PROMPT_TOKENS, input_tokens_details: { cached_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: PROMPT_TOKENS + outputTokens };
}

const outputText = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });

function message(ctx: WireContext, text: string, status: string) {
  return { id: messageId(ctx), type: 'message', status, content: status === 'in_progress' ? [] : [outputText(text)], role: 'assistant' };
}

/** The response object, echoing the request's settings as OpenAI does. */
function response(ctx: WireContext, status: string, output: unknown[], extra: Record<string, unknown> = {}) {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  return Object.assign(
    {
      id: responseId(ctx),
      object: 'response',
      created_at: CREATED,
      status,
      background: false,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      model: ctx.model,
      output,
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      service_tier: 'default',
      store: body.store ?? true,
      temperature: body.temperature ?? 1,
      text: body.text ?? { format: { type: 'text' } },
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      top_p: body.top_p ?? 1,
      truncation: 'disabled',
      usage: null,
      user: null,
      metadata: body.metadata ?? {},
    },
    extra,
  );
}

const lastInputRole = (body: unknown) => (typeof (body as { input?: unknown } | undefined)?.input === 'string' ? 'user' : lastMessageRole(body, 'input'));

export const openaiResponsesWire: VendorWire = {
  vendor: 'openai',
  defaultBaseUrl: openaiWire.defaultBaseUrl,
  matches: (url, baseUrl) => pathUnder(url, baseUrl) === '/responses',
  isStream: openaiWire.isStream,
  modelOf: openaiWire.modelOf,
  endsWithPrefill: (request) => lastInputRole(request.body) === 'assistant',
  headers: openaiWire.headers,
  completion: (ctx, text, outputTokens) => JSON.stringify(response(ctx, 'completed', [message(ctx, text, 'completed')], { usage: usage(outputTokens) })),
  streamStart: (ctx) => [
    event('response.created', 0, { response: response(ctx, 'in_progress', []) }),
    event('response.in_progress', 1, { response: response(ctx, 'in_progress', []) }),
    event('response.output_item.added', 2, { output_index: 0, item: message(ctx, '', 'in_progress') }),
    event('response.content_part.added', 3, { item_id: messageId(ctx), output_index: 0, content_index: 0, part: outputText('') }),
  ],
  // `obfuscation` is a field OpenAI adds to deltas and no unified type has: it shows what passes through untouched.
  streamToken: (ctx, text, position) => event('response.output_text.delta', EVENTS_BEFORE_TEXT + position, { item_id: messageId(ctx), output_index: 0, content_index: 0, delta: text, logprobs: [], obfuscation: `chaos${position}` }),
  streamFinish: (ctx, outputTokens, text = '') => {
    const at = EVENTS_BEFORE_TEXT + outputTokens;
    const at0 = { item_id: messageId(ctx), output_index: 0, content_index: 0 };
    return [
      event('response.output_text.done', at, Object.assign({}, at0, { text, logprobs: [] })),
      event('response.content_part.done', at + 1, Object.assign({}, at0, { part: outputText(text) })),
      event('response.output_item.done', at + 2, { output_index: 0, item: message(ctx, text, 'completed') }),
      event('response.completed', at + 3, { response: response(ctx, 'completed', [message(ctx, text, 'completed')], { usage: usage(outputTokens) }) }),
    ];
  },
  streamTerminator: () => [],
  streamError: (ctx, sentTokens = 0) =>
    event('response.failed', EVENTS_BEFORE_TEXT + sentTokens, {
      response: response(ctx, 'failed', [], { error: { code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' } }),
    }),
  malformedEvent: (ctx) => `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"${messageId(ctx)}","delta":"tru\n\n`,
  error: (ctx, name, options) => {
    const answer = openaiWire.error(ctx, name, options);
    // The Responses API names `input` where Chat Completions names `messages`.
    return name === 'context-length' || name === 'prefill-rejected' ? Object.assign({}, answer, { body: answer.body.replace('"param":"messages"', '"param":"input"') }) : answer;
  },
  contentFilter: openaiWire.contentFilter,
};

/** True when a request to the OpenAI wire is for the Responses API. */
export function isResponsesRequest(url: string): boolean {
  return url.split('?', 1)[0]!.endsWith('/responses');
}
