/**
 * Gemini on Vertex AI: the Gemini provider's wire codec (the same `generateContent` body and
 * answers) under `projects/{p}/locations/{l}/publishers/google/models/{m}`.
 */
import { geminiProvider } from '@switchyard/provider-gemini';
import { SwitchyardError, type Candidate, type ProviderRequest } from '@switchyard/core';
import { publisherPath } from './location.js';

/** The Gemini codec's `/models/{m}:method` path, moved under the Vertex publisher model. */
export function onVertex(built: ProviderRequest, target: Candidate): ProviderRequest {
  const m = /^\/models\/([^/:?]+)(:.*)$/.exec(built.path);
  if (!m) throw new SwitchyardError('config', `vertex: model "${target.model}" is not a Gemini publisher model`, { code: 'SWITCHYARD_ERR_CONFIG', path: 'model', provider: 'vertex' });
  return { ...built, path: `${publisherPath(target, 'google', decodeURIComponent(m[1]!))}${m[2]}` };
}

export function buildGeminiCountTokensRequest(...args: Parameters<NonNullable<typeof geminiProvider.buildCountTokensRequest>>): ProviderRequest {
  const [request, target] = args;
  const built = onVertex(geminiProvider.buildCountTokensRequest!(request, target), target);
  // Vertex's countTokens takes the generateContent fields at the top level.
  const body = JSON.parse(built.body!) as { generateContentRequest: Record<string, unknown> };
  const { model: _model, ...fields } = body.generateContentRequest;
  return { ...built, body: JSON.stringify(fields) };
}
