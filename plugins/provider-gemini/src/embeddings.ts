/**
 * Embeddings at Gemini: `models/{model}:batchEmbedContents`, one request per input (a single
 * input too, so both shapes of `input` take one path), answered as OpenAI's list.
 */
import { SwitchyardError, type Candidate, type EmbeddingRequest, type EmbeddingResponse, type ProviderHttpResponse, type ProviderRequest } from '@switchyard/core';
import { geminiHeaders, modelPath } from './request.js';

export function buildEmbeddingsRequest(request: EmbeddingRequest, target: Candidate): ProviderRequest {
  const path = modelPath(target.model);
  const model = decodeURIComponent(path.slice(1));
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  const requests = inputs.map((text) => ({ model, content: { parts: [{ text }] }, ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}) }));
  return { method: 'POST', path: `${path}:batchEmbedContents`, headers: geminiHeaders(target), body: JSON.stringify({ requests }) };
}

export function parseEmbeddingsResponse(response: ProviderHttpResponse, target: Candidate): EmbeddingResponse {
  const embeddings = (response.json as { embeddings?: { values?: unknown }[] } | undefined)?.embeddings;
  if (!Array.isArray(embeddings) || embeddings.some((e) => !Array.isArray(e?.values))) {
    throw new SwitchyardError('server', `gemini answered ${response.status} with a body that is not a list of embeddings`, { status: response.status, provider: 'gemini' });
  }
  return { object: 'list', data: embeddings.map((e, index) => ({ object: 'embedding', index, embedding: e.values as number[] })), model: target.model };
}
