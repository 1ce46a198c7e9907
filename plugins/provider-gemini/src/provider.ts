/** The Gemini (Generative Language API) codec. */
import { defineProvider, type ProviderRequest } from '@switchyard/core';
import { buildGeminiRequest } from './request.js';
import { geminiError } from './classify-error.js';
import { parseGeminiResponse } from './response.js';
import { GeminiStreamDecoder } from './stream-decoder.js';
import { geminiUnsupported } from './expressible.js';
import { buildCountTokensRequest, parseCountTokensResponse } from './count-tokens.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

export const geminiProvider = defineProvider({
  specificationVersion: 'v1',
  id: 'gemini',
  defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
  defaultCapabilities: ['tools', 'json', 'vision', 'stream'],
  unsupported: geminiUnsupported,
  buildRequest: buildGeminiRequest,
  parseResponse: parseGeminiResponse,
  createStreamDecoder: (target) => new GeminiStreamDecoder(target.apiKey),
  classifyError: (response, target) => geminiError(response, target.apiKey),
  buildCountTokensRequest,
  parseCountTokensResponse,
  probe: (target): ProviderRequest => ({ method: 'GET', path: '/models', headers: target.apiKey ? { 'x-goog-api-key': target.apiKey } : {} }),
});

