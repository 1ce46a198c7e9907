/**
 * A context-length failure is the request's fault on that model, not the endpoint's: it would
 * fail again there, so it goes to a deployment with a larger context window, when one remains.
 * The retry tap decides to move on; the failover tap puts the larger deployment first.
 */
import type { AttemptOutcome, Candidate, ChatRequest, RetryDecision } from '@switchyard/core';
import { requiredContextTokens } from './capabilities.js';
import type { RequestContext } from '@switchyard/core';

/** Retry tap: a context-length failure moves on when a larger deployment remains. */
export function contextReroute(outcome: AttemptOutcome, ctx: RequestContext): RetryDecision | undefined {
  const target = largerTarget(ctx.remaining, outcome, ctx);
  if (!target) return undefined;
  return { action: 'next', reason: `context length: trying ${target.deploymentId} (context window ${target.deployment.contextWindow})` };
}

/** Failover tap: the larger deployment first; never the failed deployment (another key of it) or one no larger. */
export function largerContextFirst(remaining: Candidate[], outcome: AttemptOutcome, ctx: RequestContext): Candidate[] {
  const target = largerTarget(remaining, outcome, ctx);
  if (!target) return remaining;
  const failed = outcome.candidate;
  const failedWindow = failed.deployment.contextWindow;
  const tooSmall = (c: Candidate) => c.deploymentId === failed.deploymentId || (failedWindow !== undefined && (c.deployment.contextWindow ?? Infinity) <= failedWindow);
  return [target, ...remaining.filter((c) => c !== target && !tooSmall(c))];
}

function largerTarget(remaining: Candidate[], outcome: AttemptOutcome, ctx: RequestContext): Candidate | undefined {
  if (outcome.error?.kind !== 'context-length' || ctx.kind !== 'chat') return undefined;
  const failed = outcome.candidate;
  const failedWindow = failed.deployment.contextWindow;
  // Without a configured window, all we know is that the failed model was too small for the
  // request: any other model whose window holds the estimate may do.
  const need = requiredContextTokens(ctx.request as ChatRequest, ctx.classification);
  return remaining.find((c) => {
    const window = c.deployment.contextWindow;
    if (window === undefined) return false;
    return failedWindow !== undefined ? window > failedWindow : c.model !== failed.model && window >= need;
  });
}
