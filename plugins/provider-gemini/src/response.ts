/** A whole `generateContent` body → the unified response, decoded as a one-chunk stream. */
import { ResponseAccumulator } from '@switchyard/core/internal';
import { SwitchyardError, type Candidate, type ChatResponse, type ProviderHttpResponse } from '@switchyard/core';
import { GeminiStreamDecoder } from './stream-decoder.js';

export function parseGeminiResponse(response: ProviderHttpResponse, target: Candidate): ChatResponse {
  const decoder = new GeminiStreamDecoder(target.apiKey);
  const parts = decoder.push({ data: response.text, json: response.json });
  const accumulator = new ResponseAccumulator();
  let finished = false;
  for (const part of parts) {
    if (part.type === 'error') throw part.error;
    if (part.type === 'finish') finished = true;
    accumulator.add(part);
  }
  if (!finished && accumulator.text === '' && accumulator.toolCalls.length === 0) {
    throw new SwitchyardError('server', 'gemini answered without a candidate', { status: response.status, provider: 'gemini' });
  }
  const unified = accumulator.toResponse();
  unified.model ||= target.model;
  // The signatures travel on the message too, so a caller can append it to the history as is.
  const signatures = decoder.signatures();
  if (Object.keys(signatures).length > 0) unified.choices[0].message.providerMetadata = { gemini: { ...signatures } };
  return unified;
}
