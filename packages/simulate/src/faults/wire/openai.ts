/** OpenAI Chat Completions (also the shape of Azure, DeepSeek, vLLM, Ollama compat). */
import { jsonHeaders, lastMessageRole, pathUnder, PROMPT_TOKENS, type VendorWire, type WireContext, type WireErrorName, type WireErrorOptions, type WireResponse } from '../vendor-wire.js';

const CREATED = 1_770_933_892;
const frame = (payload: unknown) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
const idOf = (ctx: WireContext) => `chatcmpl-chaos${ctx.index}`;

function usage(outputTokens: number) {
  return {
    prompt_tokens: PROMPT_TOKENS,
    completion_tokens: outputTokens,
    total_tokens: PROMPT_TOKENS + outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function chunk(ctx: WireContext, delta: Record<string, unknown>, finishReason: string | null) {
  return {
    id: idOf(ctx),
    object: 'chat.completion.chunk',
    created: CREATED,
    model: ctx.model,
    service_tier: 'default',
    system_fingerprint: 'fp_chaos',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}

function includeUsage(ctx: WireContext): boolean {
  return Boolean((ctx.request.body as { stream_options?: { include_usage?: boolean } } | undefined)?.stream_options?.include_usage);
}

const errorBody = (message: string, type: string | null, code: string | null, param: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ error: { message, type, param, code, ...extra } });

function errorFor(name: WireErrorName, options: WireErrorOptions): { status: number; body: string; headers?: Record<string, string> } {
  switch (name) {
    case 'rate-limited': {
      const s = options.retryAfterS;
      const headers: Record<string, string> = { 'x-ratelimit-limit-requests': '500', 'x-ratelimit-remaining-requests': '0' };
      if (s !== undefined) Object.assign(headers, { 'retry-after': String(s), 'retry-after-ms': String(Math.round(s * 1000)), 'x-ratelimit-reset-requests': `${s}s` });
      const wait = s !== undefined ? ` Please try again in ${s}s.` : '';
      return { status: 429, headers, body: errorBody(`Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1.${wait}`, 'requests', 'rate_limit_exceeded') };
    }
    case 'server-error':
      return { status: 500, body: errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null) };
    case 'unavailable':
      return { status: 503, body: errorBody('The server is temporarily unavailable. Please try again later.', 'server_error', 'service_unavailable') };
    case 'overloaded':
      return { status: 503, body: errorBody('The engine is currently overloaded, please try again later', 'server_error', null) };
    case 'context-length':
      return { status: 400, body: errorBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.", 'invalid_request_error', 'context_length_exceeded', 'messages') };
    case 'prefill-rejected':
      return { status: 400, body: errorBody('This model does not support assistant message prefill. The conversation must end with a user message.', 'invalid_request_error', 'invalid_value', 'messages') };
    case 'key-invalid':
      return { status: 401, body: errorBody('Incorrect API key provided: sk-chaos****. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key') };
    case 'out-of-credit':
      // OpenAI says it with a 429; DeepSeek and some compat vendors with a 402.
      if (options.status === 402) return { status: 402, body: errorBody('Insufficient Balance', 'unknown_error', 'invalid_request_error') };
      return { status: 429, body: errorBody('You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.', 'insufficient_quota', 'insufficient_quota') };
  }
}

export const openaiWire: VendorWire = {
  vendor: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  matches: (url, baseUrl) => pathUnder(url, baseUrl) === '/chat/completions',
  isStream: (request) => (request.body as { stream?: boolean } | undefined)?.stream === true,
  modelOf: (request) => String((request.body as { model?: string } | undefined)?.model ?? 'gpt-4o-mini'),
  endsWithPrefill: (request) => lastMessageRole(request.body, 'messages') === 'assistant',
  headers: (ctx) => ({
    'content-type': ctx.stream ? 'text/event-stream; charset=utf-8' : 'application/json',
    'x-request-id': `req_chaos${ctx.index}`,
    'openai-version': '2020-10-01',
    'openai-processing-ms': '42',
  }),
  completion: (ctx, text, outputTokens) =>
    JSON.stringify({
      id: idOf(ctx),
      object: 'chat.completion',
      created: CREATED,
      model: ctx.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage: usage(outputTokens),
      service_tier: 'default',
      system_fingerprint: 'fp_chaos',
    }),
  streamStart: (ctx) => [frame(chunk(ctx, { role: 'assistant', content: '', refusal: null }, null))],
  streamToken: (ctx, text) => frame(chunk(ctx, { content: text }, null)),
  streamFinish: (ctx, outputTokens) => {
    const events = [frame(chunk(ctx, {}, 'stop'))];
    if (includeUsage(ctx)) events.push(frame({ ...chunk(ctx, {}, null), choices: [], usage: usage(outputTokens) }));
    return events;
  },
  streamTerminator: () => [frame('[DONE]')],
  streamError: () => frame(JSON.parse(errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null))),
  malformedEvent: (ctx) => `data: {"id":"${idOf(ctx)}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tru\n\n`,
  error(ctx, name, options = {}): WireResponse {
    const e = errorFor(name, options);
    return { status: e.status, headers: jsonHeaders({ 'x-request-id': `req_chaos${ctx.index}`, ...e.headers }), body: e.body };
  },
  contentFilter: (ctx) => ({
    status: 400,
    headers: jsonHeaders({ 'x-request-id': `req_chaos${ctx.index}` }),
    body: errorBody(
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
      null,
      'content_filter',
      'prompt',
      { status: 400, innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { hate: { filtered: true, severity: 'high' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } } } },
    ),
  }),
};
