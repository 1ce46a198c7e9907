/** What the core does when no plugin decides: the classification and the retry decision. */
import type { AttemptOutcome, Classification, RetryDecision } from './contract.js';
import type { ChatRequest } from './types.js';

/** What happens after a failure when no retry plugin decides (DESIGN.md, outcome classes). */
export function defaultRetryDecision(outcome: AttemptOutcome): RetryDecision {
  switch (outcome.outcome) {
    case 'request-failure':
      return { action: 'fail', reason: 'the request itself was rejected' };
    case 'ignored':
      return { action: 'fail', reason: 'cancelled' };
    default:
      return { action: 'next', reason: outcome.error?.kind ?? 'failure' };
  }
}

export function defaultClassification(request: ChatRequest, stream: boolean): Classification {
  let chars = 0;
  for (const m of request.messages ?? []) {
    if (typeof m.content === 'string') chars += m.content.length;
    else if (Array.isArray(m.content)) for (const p of m.content) if (typeof (p as { text?: unknown }).text === 'string') chars += (p as { text: string }).text.length;
  }
  return {
    tier: request.switchyard?.tier,
    capabilities: new Set(),
    estimatedInputTokens: Math.ceil(chars / 4),
    costTolerance: request.switchyard?.costTolerance,
    stream,
    commit: 'first-token',
  };
}
