/**
 * Capability matching: which capabilities a request needs, and which deployments can serve it.
 * A deployment with no declared capabilities is assumed to serve anything (unknown ≠ unable).
 */
import { ROUTING_ERRORS } from '@switchyard/contracts';
import { ROUTER_ERRORS } from './error-codes.js';
import { SwitchyardError, type Candidate, type ChatRequest, type Classification } from '@switchyard/core';

/** Where in the request each capability comes from, for error messages. */
const CAPABILITY_SOURCE: Record<string, { path: string; reason: string }> = {
  tools: { path: 'tools', reason: 'the request uses tools' },
  json: { path: 'response_format', reason: 'the request asks for a JSON response_format' },
  vision: { path: 'messages', reason: 'the request has image_url parts' },
};

export function requiredCapabilities(request: ChatRequest): string[] {
  const needs: string[] = [];
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const usesTools = (request.tools?.length ?? 0) > 0 || messages.some((m) => m.role === 'tool' || (m.tool_calls?.length ?? 0) > 0);
  if (usesTools) needs.push('tools');
  const format = request.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') needs.push('json');
  const hasImage = messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p?.type === 'image_url'));
  if (hasImage) needs.push('vision');
  return needs;
}

/** Tokens the deployment's context window must hold: the prompt estimate plus the answer budget. */
export function requiredContextTokens(request: ChatRequest, classification: Classification): number {
  const answer = request.max_completion_tokens ?? request.max_tokens ?? 0;
  return classification.estimatedInputTokens + (Number.isFinite(answer) && answer > 0 ? answer : 0);
}

export function hasCapabilities(candidate: Candidate, needs: Iterable<string>): boolean {
  if (candidate.capabilities.size === 0) return true;
  for (const need of needs) if (!candidate.capabilities.has(need)) return false;
  return true;
}

export function fitsContext(candidate: Candidate, tokens: number): boolean {
  const window = candidate.deployment.contextWindow;
  return window === undefined || window >= tokens;
}

/**
 * Throws a coded error when no configured deployment of the model could ever serve the request,
 * naming what is missing. Deployments that are merely filtered out right now are not an error
 * here: the core then reports `no-candidate` (503).
 */
export function assertServable(model: string, configured: readonly Candidate[], needs: string[], tokens: number | undefined): void {
  for (const need of needs) {
    if (!configured.some((c) => hasCapabilities(c, [need]))) {
      const source = CAPABILITY_SOURCE[need] ?? { path: 'request', reason: `the request needs "${need}"` };
      throw new SwitchyardError('bad-request', `no deployment of model "${model}" has the capability "${need}" (${source.reason}); add it to a deployment's capabilities or use another model`, {
        status: 400,
        retryable: false,
        code: ROUTER_ERRORS.SWITCHYARD_ERR_MISSING_CAPABILITY,
        path: source.path,
      });
    }
  }
  const capable = configured.filter((c) => hasCapabilities(c, needs));
  if (capable.length === 0) {
    throw new SwitchyardError('bad-request', `no single deployment of model "${model}" has all of: ${needs.join(', ')}`, {
      status: 400,
      retryable: false,
      code: ROUTER_ERRORS.SWITCHYARD_ERR_MISSING_CAPABILITY,
      path: 'request',
    });
  }
  if (tokens !== undefined && !capable.some((c) => fitsContext(c, tokens))) {
    const largest = Math.max(...capable.map((c) => c.deployment.contextWindow ?? 0));
    throw new SwitchyardError('context-length', `the request needs about ${tokens} tokens (prompt estimate + max_tokens) but the largest context window of model "${model}" is ${largest}`, {
      status: 400,
      retryable: false,
      code: ROUTING_ERRORS.SWITCHYARD_ERR_CONTEXT_WINDOW,
      path: 'messages',
    });
  }
}
