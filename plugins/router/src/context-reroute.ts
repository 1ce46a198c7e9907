/**
 * A context-length failure is the request's fault on that model, not the endpoint's: it would
 * fail again there, so it goes to a deployment with a larger context window, when one remains.
 */
import type { AttemptOutcome, Candidate, ChatRequest, RetryDecision } from '@switchyard/core';
import { requiredContextTokens } from './capabilities.js';
import type { RequestContext } from '@switchyard/core';

export function contextReroute(outcome: AttemptOutcome, ctx: RequestContext): RetryDecision | undefined {
  if (outcome.error?.kind !== 'context-length' || ctx.kind !== 'chat') return undefined;
  const failed = outcome.candidate;
  const failedWindow = failed.deployment.contextWindow;
  // Without a configured window, all we know is that the failed model was too small for the
  // request: any other model whose window holds the estimate may do.
  const need = requiredContextTokens(ctx.request as ChatRequest, ctx.classification);
  const larger = (c: Candidate) => {
    const window = c.deployment.contextWindow;
    if (window === undefined) return false;
    return failedWindow !== undefined ? window > failedWindow : c.model !== failed.model && window >= need;
  };
  const target = ctx.remaining.find(larger);
  if (!target) return undefined;
  // Never send the same request to the failed deployment (another key of it) or to one no larger.
  const tooSmall = (c: Candidate) => c.deploymentId === failed.deploymentId || (failedWindow !== undefined && (c.deployment.contextWindow ?? Infinity) <= failedWindow);
  ctx.remaining = [target, ...ctx.remaining.filter((c) => c !== target && !tooSmall(c))];
  return { action: 'next', reason: `context length: trying ${target.deploymentId} (context window ${target.deployment.contextWindow})` };
}
