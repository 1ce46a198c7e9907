/**
 * Mid-stream continuation, the streaming contract's default: a committed stream that was cut or
 * stalled continues on a candidate that declares the `prefill` capability (declaring it is the
 * opt-in), so the caller receives one whole answer. When no such candidate can continue, the
 * stream ends with the original failure, never a fallback's prefill rejection. A plugin may
 * tap `continueStream` before this default to change it (the hedge plugin's per-tier options).
 */
import { candidateRef } from './candidate-ref.js';
import type { Candidate, ChatRequest, StreamPart } from './types.js';
import type { PipelineHooks, RequestContext, StreamInterruption } from './contract.js';
import { STAGE } from './hooks.js';

/** Failures after the commit point that another deployment can recover from. */
const CONTINUABLE = new Set(['stream-cut', 'idle-timeout', 'network', 'server', 'overloaded', 'timeout']);

/** How many prefill-capable candidates the default continuation tries. */
export const DEFAULT_MAX_CONTINUATIONS = 2;

export function continuationCandidates(ctx: RequestContext, failed: Candidate): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of [...ctx.remaining, ...ctx.candidates]) {
    if (seen.has(c.id) || c.deploymentId === failed.deploymentId || !c.capabilities.has('prefill')) continue;
    seen.add(c.id);
    out.push(c);
  }
  return out;
}

export function prefillRequest(request: ChatRequest, partialText: string): ChatRequest {
  return { ...request, messages: [...request.messages, { role: 'assistant', content: partialText }] };
}

export async function continueStream(interruption: StreamInterruption, ctx: RequestContext, maxTries: number, initiator: string): Promise<AsyncIterable<StreamPart> | undefined> {
  if (!CONTINUABLE.has(interruption.error.kind)) return undefined;
  const message = interruption.partial.choices[0]?.message;
  // Tool calls and reasoning cannot be resumed faithfully by another model.
  if (!message || message.tool_calls?.length || !message.content) return undefined;
  const request = prefillRequest(ctx.request as ChatRequest, message.content);
  for (const candidate of continuationCandidates(ctx, interruption.candidate).slice(0, maxTries)) {
    if (ctx.signal.aborted) return undefined;
    let result;
    try {
      result = await ctx.runAttempt(candidate, { request, initiator });
    } catch {
      continue; // e.g. the fallback rejects the prefill: try the next one
    }
    if (result.type !== 'stream') continue;
    ctx.pipeline.events.emit('failover', { requestId: ctx.id, from: candidateRef(interruption.candidate), to: candidateRef(candidate), error: interruption.error });
    const { head, rest } = result;
    return (async function* () {
      for (const part of head) if (part.type !== 'response-metadata') yield part;
      for (;;) {
        const next = await rest.next();
        if (next.done) return;
        if (next.value.type !== 'response-metadata') yield next.value;
      }
    })();
  }
  return undefined;
}

/** The built-in tap, after every plugin's. */
export function tapDefaultContinuation(hooks: PipelineHooks): void {
  hooks.continueStream.tapPromise({ name: 'switchyard:continuation', stage: STAGE.LAST }, (interruption, ctx) => continueStream(interruption, ctx, DEFAULT_MAX_CONTINUATIONS, 'switchyard:continuation'));
}
