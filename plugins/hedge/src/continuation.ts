/**
 * Mid-stream continuation: a committed stream that was cut or stalled continues on a candidate
 * that accepts an assistant prefill, so the caller receives one whole answer. When no such
 * candidate can continue, the core ends the stream with the original failure.
 */
import type { Candidate, ChatRequest, RequestContext, StreamInterruption, StreamPart } from '@switchyard/core';

/** Failures after the commit point that another deployment can recover from. */
const CONTINUABLE = new Set(['stream-cut', 'idle-timeout', 'network', 'server', 'overloaded', 'timeout']);

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

export async function continueStream(interruption: StreamInterruption, ctx: RequestContext, maxTries: number, pluginName: string): Promise<AsyncIterable<StreamPart> | undefined> {
  if (!CONTINUABLE.has(interruption.error.kind)) return undefined;
  const message = interruption.partial.choices[0]?.message;
  // Tool calls and reasoning cannot be resumed faithfully by another model.
  if (!message || message.tool_calls?.length || !message.content) return undefined;
  const request = prefillRequest(ctx.request as ChatRequest, message.content);
  for (const candidate of continuationCandidates(ctx, interruption.candidate).slice(0, maxTries)) {
    if (ctx.signal.aborted) return undefined;
    let result;
    try {
      result = await ctx.runAttempt(candidate, { request, initiator: pluginName });
    } catch {
      continue; // e.g. the fallback rejects the prefill: try the next one
    }
    if (result.type !== 'stream') continue;
    ctx.pipeline.events.emit('failover', { requestId: ctx.id, from: interruption.candidate, to: candidate, error: interruption.error });
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
