/** Google Gemini generateContent: `data:` SSE with CRLF separators, no sentinel, gRPC-style errors. */
import { jsonHeaders, lastMessageRole, pathUnder, PROMPT_TOKENS, type VendorWire, type WireContext, type WireErrorName, type WireErrorOptions, type WireResponse } from '../vendor-wire.js';

const ENDPOINT = /^\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const frame = (payload: unknown) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\r\n\r\n`;
const responseId = (ctx: WireContext) => `chaos${ctx.index}`;

function usageMetadata(outputTokens: number) {
  return { promptTokenCount: PROMPT_TOKENS, candidatesTokenCount: outputTokens, totalTokenCount: PROMPT_TOKENS + outputTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: PROMPT_TOKENS }] };
}

function response(ctx: WireContext, text: string, outputTokens: number, finishReason?: string) {
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    usageMetadata: usageMetadata(outputTokens),
    modelVersion: ctx.model,
    responseId: responseId(ctx),
  };
}

const quotaFailure = (quotaId: string) => ({ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId }] });

function errorFor(name: WireErrorName, options: WireErrorOptions): { code: number; status: string; message: string; details?: unknown[] } {
  switch (name) {
    case 'rate-limited': {
      // Gemini sends no Retry-After header: the wait lives in the body's RetryInfo.
      const details: unknown[] = [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel')];
      if (options.retryAfterS !== undefined) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${options.retryAfterS}s` });
      return { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).', details };
    }
    case 'server-error':
      return { code: 500, status: 'INTERNAL', message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting' };
    case 'unavailable':
      return { code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' };
    case 'overloaded':
      return { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' };
    case 'context-length':
      return { code: 400, status: 'INVALID_ARGUMENT', message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).' };
    case 'prefill-rejected':
      return { code: 400, status: 'INVALID_ARGUMENT', message: 'Please ensure that multiturn requests end with a user role or a function response.' };
    case 'key-invalid':
      // Gemini reports a bad key as a 400, not a 401.
      return {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'API key not valid. Please pass a valid API key.',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
      };
    case 'out-of-credit':
      return { code: options.status ?? 429, status: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota, please check your plan and billing details.', details: [quotaFailure('GenerateRequestsPerDayPerProjectPerModel-FreeTier')] };
  }
}

export const geminiWire: VendorWire = {
  vendor: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  matches: (url, baseUrl) => ENDPOINT.test(pathUnder(url, baseUrl) ?? ''),
  isStream: (request) => /:streamGenerateContent(\?|$)/.test(request.url),
  modelOf: (request) => /\/models\/([^/:]+):/.exec(request.url)?.[1] ?? 'gemini-2.5-flash',
  endsWithPrefill: (request) => lastMessageRole(request.body, 'contents') === 'model',
  headers: (ctx) => ({ 'content-type': ctx.stream ? 'text/event-stream' : 'application/json; charset=UTF-8', 'x-chaos-response-id': responseId(ctx) }),
  completion: (ctx, text, outputTokens) => JSON.stringify(response(ctx, text, outputTokens, 'STOP')),
  streamStart: () => [],
  streamToken: (ctx, text, position) => frame(response(ctx, text, position + 1)),
  streamFinish: (ctx, outputTokens) => [frame(response(ctx, '', outputTokens, 'STOP'))],
  streamTerminator: () => [],
  streamError: () => frame({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }),
  malformedEvent: () => 'data: {"candidates": [{"content": {"parts": [{"text": "tru\r\n\r\n',
  error(_ctx, name, options = {}): WireResponse {
    const e = errorFor(name, options);
    return { status: e.code, headers: jsonHeaders(), body: JSON.stringify({ error: { code: e.code, message: e.message, status: e.status, ...(e.details ? { details: e.details } : {}) } }) };
  },
  contentFilter(ctx) {
    const blocked = {
      promptFeedback: { blockReason: 'SAFETY', safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] },
      usageMetadata: usageMetadata(0),
      modelVersion: ctx.model,
      responseId: responseId(ctx),
    };
    const headers = geminiWire.headers(ctx);
    return ctx.stream ? { status: 200, headers, events: [frame(blocked)] } : { status: 200, headers, body: JSON.stringify(blocked) };
  },
};
