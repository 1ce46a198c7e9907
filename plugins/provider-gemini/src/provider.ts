/** The Gemini (Generative Language API) codec. */
import { defineProvider, type ProviderRequest } from '@switchyard/core';
import { keepWireBody, requestOriginOf } from '@switchyard/core/wire';
import { buildGeminiRequest, geminiHeaders, modelPath } from './request.js';
import { geminiError } from './classify-error.js';
import { parseGeminiResponse } from './response.js';
import { GeminiStreamDecoder } from './stream-decoder.js';
import { geminiUnsupported } from './expressible.js';
import { buildCountTokensRequest, parseCountTokensResponse } from './count-tokens.js';
import { buildEmbeddingsRequest, parseEmbeddingsResponse } from './embeddings.js';
import { GEMINI_GENERATE_CONTENT } from './wire-format.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

export const geminiProvider = defineProvider({
  specificationVersion: 'v1',
  id: 'gemini',
  defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
  defaultCapabilities: ['tools', 'json', 'vision', 'stream'],
  speaks: (format) => format === GEMINI_GENERATE_CONTENT,
  unsupported: geminiUnsupported,
  buildRequest(request, target, options) {
    // A client of the Gemini API gets its own body sent on (the model and the stream are in the URL).
    const origin = requestOriginOf(request, GEMINI_GENERATE_CONTENT);
    if (!origin) return buildGeminiRequest(request, target, options);
    return {
      method: 'POST',
      path: `${modelPath(target.model)}${options.stream ? ':streamGenerateContent?alt=sse' : ':generateContent'}`,
      headers: geminiHeaders(target),
      body: origin.text ?? JSON.stringify(origin.body),
      bodyBytes: origin.bytes,
    };
  },
  parseResponse(response, target) {
    const chat = parseGeminiResponse(response, target);
    // A Gemini client gets the vendor's own answer (signatures, grounding and all).
    keepWireBody(chat, { format: GEMINI_GENERATE_CONTENT, text: response.text });
    return chat;
  },
  createStreamDecoder: (target) => new GeminiStreamDecoder(target.apiKey),
  classifyError: (response, target) => geminiError(response, target.apiKey),
  buildCountTokensRequest,
  parseCountTokensResponse,
  buildEmbeddingsRequest,
  parseEmbeddingsResponse,
  probe: (target): ProviderRequest => ({ method: 'GET', path: '/models', headers: target.apiKey ? { 'x-goog-api-key': target.apiKey } : {} }),
});
