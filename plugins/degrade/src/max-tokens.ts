/** The max-tokens level: the same question with a smaller output limit. */
import type { ChatRequest, SwitchyardError } from '@switchyard/core';

const LIMIT_FIELDS = ['max_tokens', 'max_completion_tokens'] as const;

/**
 * The request with its output limit lowered to `maxTokens` (in whichever field it uses;
 * `max_tokens` when it set none), or undefined when its limit is that small already.
 */
export function withSmallerOutput(request: ChatRequest, maxTokens: number): ChatRequest | undefined {
  const field = request.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  const current = request[field];
  if (typeof current === 'number' && current <= maxTokens) return undefined;
  return { ...request, [field]: maxTokens };
}

/**
 * A request failure a smaller output limit can fix: the prompt plus the limit overflow the
 * context window, or the vendor names the limit itself (`max_tokens is too large`).
 */
export function fixableByShorterOutput(error: SwitchyardError): boolean {
  if (error.kind === 'context-length') return true;
  if (error.kind !== 'bad-request') return false;
  if (error.param && (LIMIT_FIELDS as readonly string[]).includes(error.param)) return true;
  return /max_(completion_)?tokens|max_output_tokens|maxOutputTokens/.test(error.message);
}
