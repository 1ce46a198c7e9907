/**
 * Claude on Vertex AI: `rawPredict` / `streamRawPredict` on the Anthropic publisher model with
 * the client's Messages body, `anthropic_version: "vertex-2023-10-16"`, `stream` in the body,
 * and the client's betas (those Vertex takes) in the `anthropic-beta` header. The answer is
 * Anthropic's own JSON and SSE, decoded by the Anthropic codec.
 */
import { allowedBetas, anthropicProvider, cloudMessagesBody, splitBetas, withoutFields } from '@switchyard/provider-anthropic';
import type { Candidate, ChatRequest, ProviderRequest } from '@switchyard/core';
import { publisherPath } from './location.js';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * Betas Claude on Vertex AI takes; others are dropped (Vertex refuses an unknown beta). Source:
 * Google Cloud, "Claude models on Vertex AI" feature pages (1M context, interleaved thinking,
 * token-efficient tools, computer use, context management). `options.anthropicBetas` replaces it.
 */
export const VERTEX_ANTHROPIC_BETAS: readonly string[] = [
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
];
/** The betas a Vertex endpoint takes: `options.anthropicBetas`, else the list above. */
export const VERTEX_DEFAULT_BETAS: ReadonlySet<string> = new Set(VERTEX_ANTHROPIC_BETAS);

function claudeHeaders(kept: readonly string[]): Record<string, string> {
  return kept.length > 0 ? { 'content-type': 'application/json', 'anthropic-beta': kept.join(',') } : { 'content-type': 'application/json' };
}

export function buildClaudeRequest(request: ChatRequest, target: Candidate, stream: boolean): ProviderRequest {
  const { body, betas } = cloudMessagesBody(request, target, VERTEX_ANTHROPIC_VERSION);
  const { kept, fields } = splitBetas(betas, allowedBetas(target.endpoint, VERTEX_DEFAULT_BETAS));
  const sent = withoutFields(body, fields);
  if (stream) sent.stream = true;
  return { method: 'POST', path: `${publisherPath(target, 'anthropic', target.model)}:${stream ? 'streamRawPredict' : 'rawPredict'}`, headers: claudeHeaders(kept), body: JSON.stringify(sent) };
}

/** Vertex counts Claude tokens on the `count-tokens` publisher model with the Anthropic count body. */
export function buildClaudeCountTokensRequest(request: ChatRequest, target: Candidate): ProviderRequest {
  const anthropic = anthropicProvider.buildCountTokensRequest!(request, target);
  const betas = anthropic.headers['anthropic-beta']?.split(',').map((b) => b.trim()) ?? [];
  return { method: 'POST', path: `${publisherPath(target, 'anthropic', 'count-tokens')}:rawPredict`, headers: claudeHeaders(splitBetas(betas, allowedBetas(target.endpoint, VERTEX_DEFAULT_BETAS)).kept), body: anthropic.body };
}
