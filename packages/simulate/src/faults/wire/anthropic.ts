/** Anthropic Messages: `event:` + `data:` SSE, no `[DONE]`, errors as `{type:"error",error:{type,message}}`. */
import { jsonHeaders, lastMessageRole, pathUnder, PROMPT_TOKENS, type VendorWire, type WireContext, type WireErrorName, type WireErrorOptions, type WireResponse } from '../vendor-wire.js';

const event = (type: string, payload: unknown) => `event: ${type}\ndata: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
const messageId = (ctx: WireContext) => `msg_chaos${ctx.index}`;
const requestId = (ctx: WireContext) => `req_chaos${ctx.index}`;

const startUsage = { input_tokens: PROMPT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' };

function messageStart(ctx: WireContext) {
  return event('message_start', {
    type: 'message_start',
    message: { id: messageId(ctx), type: 'message', role: 'assistant', model: ctx.model, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
  });
}

function messageDelta(stopReason: string, outputTokens: number) {
  return event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { input_tokens: PROMPT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokens },
  });
}

const errorPayload = (ctx: WireContext, type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId(ctx) });

function errorFor(name: WireErrorName, options: WireErrorOptions): { status: number; type: string; message: string; headers?: Record<string, string> } {
  switch (name) {
    case 'rate-limited': {
      const headers: Record<string, string> = { 'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '0' };
      if (options.retryAfterS !== undefined) headers['retry-after'] = String(options.retryAfterS);
      return { status: 429, type: 'rate_limit_error', headers, message: 'This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.' };
    }
    case 'server-error':
      return { status: 500, type: 'api_error', message: 'Internal server error' };
    case 'unavailable':
      return { status: 503, type: 'api_error', message: 'Service unavailable' };
    case 'overloaded':
      return { status: 529, type: 'overloaded_error', message: 'Overloaded' };
    case 'context-length':
      return { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 209353 tokens > 199999 maximum' };
    case 'prefill-rejected':
      return { status: 400, type: 'invalid_request_error', message: 'This model does not support assistant message prefill. The conversation must end with a user message.' };
    case 'key-invalid':
      return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
    case 'out-of-credit':
      return { status: options.status ?? 402, type: 'billing_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' };
  }
}

export const anthropicWire: VendorWire = {
  vendor: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  matches: (url, baseUrl) => pathUnder(url, baseUrl) === '/messages',
  isStream: (request) => (request.body as { stream?: boolean } | undefined)?.stream === true,
  modelOf: (request) => String((request.body as { model?: string } | undefined)?.model ?? 'claude-sonnet-4-5'),
  endsWithPrefill: (request) => lastMessageRole(request.body, 'messages') === 'assistant',
  headers: (ctx) => ({ 'content-type': ctx.stream ? 'text/event-stream; charset=utf-8' : 'application/json', 'request-id': requestId(ctx) }),
  completion: (ctx, text, outputTokens) =>
    JSON.stringify({
      id: messageId(ctx),
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { ...startUsage, output_tokens: outputTokens },
    }),
  streamStart: (ctx) => [
    messageStart(ctx),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    // The real wire formats pings with a space; parsers must not care.
    event('ping', '{"type": "ping"}'),
  ],
  streamToken: (_ctx, text) => event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  streamFinish: (_ctx, outputTokens) => [event('content_block_stop', { type: 'content_block_stop', index: 0 }), messageDelta('end_turn', outputTokens)],
  streamTerminator: () => [event('message_stop', '{"type":"message_stop"    }')],
  streamError: (ctx) => event('error', errorPayload(ctx, 'overloaded_error', 'Overloaded')),
  malformedEvent: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n',
  error(ctx, name, options = {}): WireResponse {
    const e = errorFor(name, options);
    return { status: e.status, headers: jsonHeaders({ 'request-id': requestId(ctx), ...e.headers }), body: errorPayload(ctx, e.type, e.message) };
  },
  contentFilter(ctx) {
    const headers = anthropicWire.headers(ctx);
    if (!ctx.stream) {
      return {
        status: 200,
        headers,
        body: JSON.stringify({ id: messageId(ctx), type: 'message', role: 'assistant', model: ctx.model, content: [], stop_reason: 'refusal', stop_sequence: null, usage: { ...startUsage, output_tokens: 0 } }),
      };
    }
    return { status: 200, headers, events: [messageStart(ctx), messageDelta('refusal', 0), ...anthropicWire.streamTerminator(ctx)] };
  },
};
