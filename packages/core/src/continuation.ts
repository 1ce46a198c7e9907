/**
 * Mid-stream continuation, the streaming contract's default: a committed stream that was cut or
 * stalled continues on a candidate that declares the `prefill` capability (declaring it is the
 * opt-in), or whose provider continues the client's request in the client's own dialect
 * (canContinue), so the caller receives one whole answer. When no such candidate can continue, the
 * stream ends with the original failure, never a fallback's prefill rejection. A plugin may
 * tap `continueStream` before this default to change it (the hedge plugin's per-tier options).
 *
 * Each candidate gets the continuation its provider builds (`ProviderV1.continuation`: the
 * client's own body plus the partial answer where it speaks the client's dialect, state signed by
 * the cut deployment removed), or the unified prefill; either passes the same expressibility
 * check as a first attempt, and keeps the client's tools. A provider that finds no valid
 * continuation for a candidate (`continuation` returns undefined) leaves it out.
 */
import { candidateRef } from './candidate-ref.js';
import type { Candidate, ChatRequest, StreamPart, Usage } from './types.js';
import type { PipelineHooks, RequestContext, StreamInterruption } from './contract.js';
import { STAGE } from './hooks.js';
import type { ProviderV1 } from './provider.js';
import { expressibleCandidates } from './expressible.js';
import { requestOriginOf, setRequestOrigin } from './request-origin.js';
import { droppedFor } from './translation.js';
import { ANTHROPIC_MESSAGES } from './wire-formats.js';

/** Failures after the commit point that another deployment can recover from. */
const CONTINUABLE = new Set(['stream-cut', 'idle-timeout', 'network', 'server', 'overloaded', 'timeout']);

/** How many prefill-capable candidates the default continuation tries. */
export const DEFAULT_MAX_CONTINUATIONS = 2;

/**
 * Whether `candidate` can continue a cut answer to `request`: it declares `prefill`, or it lists
 * no capabilities of its own and its provider continues the client's request in the client's
 * dialect (it speaks it and builds its own continuation: OpenAI Responses for a Responses
 * client). A deployment whose `capabilities` leave `prefill` out never continues.
 */
function canContinue(candidate: Candidate, request: ChatRequest, providers: ReadonlyMap<string, ProviderV1>): boolean {
  if (candidate.capabilities.has('prefill')) return true;
  if (candidate.deployment?.capabilities) return false;
  const provider = providers.get(candidate.provider);
  const origin = requestOriginOf(request);
  return !!(origin && provider?.continuation && provider.speaks?.(origin.format, candidate));
}

export function continuationCandidates(ctx: RequestContext, failed: Candidate): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  const request = ctx.request as ChatRequest;
  for (const c of [...ctx.remaining, ...ctx.candidates]) {
    if (seen.has(c.id) || c.deploymentId === failed.deploymentId || !canContinue(c, request, ctx.pipeline.providers)) continue;
    seen.add(c.id);
    out.push(c);
  }
  return out;
}

/**
 * The request that continues `partialText`: the conversation with the partial answer as the
 * assistant's last turn. A Messages client's own body goes with it, the same turn appended (the
 * dialect's `messages` take `{role, content}` turns as written), so a continuation on Claude's
 * other channels still sends what the client wrote (cache_control, system blocks, tools…).
 */
export function prefillRequest(request: ChatRequest, partialText: string): ChatRequest {
  const next: ChatRequest = { ...request, messages: [...request.messages, { role: 'assistant', content: partialText }] };
  const origin = requestOriginOf(request, ANTHROPIC_MESSAGES);
  const turns = origin?.body.messages;
  if (origin && Array.isArray(turns)) {
    const { text: _unchanged, ...kept } = origin;
    setRequestOrigin(next, { ...kept, body: { ...origin.body, messages: [...turns, { role: 'assistant', content: partialText }] } });
  }
  return next;
}

/** The request that continues `partialText` on `candidate`, or undefined when it cannot take one as a first attempt could not. */
function continuationFor(ctx: RequestContext, original: ChatRequest, partialText: string, candidate: Candidate, from: Candidate): ChatRequest | undefined {
  const { providers } = ctx.pipeline;
  const provider = providers.get(candidate.provider);
  const request = provider?.continuation ? provider.continuation(original, partialText, candidate, from) : prefillRequest(original, partialText);
  if (!request) return undefined;
  try {
    return expressibleCandidates(request, [candidate], providers, true).length > 0 ? request : undefined;
  } catch {
    return undefined; // the same refusal a first attempt gets (expressible.ts)
  }
}

export async function continueStream(interruption: StreamInterruption, ctx: RequestContext, maxTries: number, initiator: string): Promise<AsyncIterable<StreamPart> | undefined> {
  if (!CONTINUABLE.has(interruption.error.kind)) return undefined;
  const message = interruption.partial.choices[0]?.message;
  // Tool calls and reasoning cannot be resumed faithfully by another model.
  if (!message || message.tool_calls?.length || !message.content) return undefined;
  const original = ctx.request as ChatRequest;
  let tries = 0;
  for (const candidate of continuationCandidates(ctx, interruption.candidate)) {
    if (ctx.signal.aborted || tries >= maxTries) return undefined;
    const request = continuationFor(ctx, original, message.content, candidate, interruption.candidate);
    if (!request) continue;
    tries++;
    let result;
    try {
      result = await ctx.runAttempt(candidate, { request, initiator });
    } catch {
      continue; // e.g. the fallback rejects the prefill: try the next one
    }
    if (result.type !== 'stream') continue;
    ctx.pipeline.events.emit('failover', { requestId: ctx.id, from: candidateRef(interruption.candidate), to: candidateRef(candidate), error: interruption.error });
    // What the continuation was sent without (thinking turned off for a prefill) is disclosed as a first attempt's drops are; the answer's headers already went out.
    const dropped = droppedFor(request, candidate, ctx.pipeline.providers.get(candidate.provider));
    if (dropped && dropped.length > 0) ctx.pipeline.events.emit('field:dropped', { requestId: ctx.id, model: ctx.model, candidate: candidateRef(candidate), dropped });
    const { head, rest } = result;
    // A vendor that refuses a prefill ending in whitespace gets it trimmed (Anthropic) and answers
    // with that whitespace again: the client already has it.
    let trim = /\s$/.test(message.content);
    const cutUsage = interruption.partial.usage;
    const untrimmed = (part: StreamPart): StreamPart | undefined => {
      if (part.type === 'response-metadata') return undefined;
      if (trim && part.type === 'text-delta') {
        trim = false;
        const text = part.text.trimStart();
        return text ? { ...part, text } : undefined;
      }
      return stitched(part, cutUsage);
    };
    return (async function* () {
      for (const part of head) {
        const out = untrimmed(part);
        if (out) yield out;
      }
      for (;;) {
        const next = await rest.next();
        if (next.done) return;
        const out = untrimmed(next.value);
        if (out) yield out;
      }
    })();
  }
  return undefined;
}

/**
 * A part of the continuation as the client gets it: a copy, so it carries none of its vendor's
 * event text (wire-events.ts; the client's stream has its head, ids and indexes from the cut
 * vendor, and the dialect's encoder writes the rest into them), with the usage of both attempts
 * summed (the answer the client holds is what both produced; each attempt is billed on its own).
 */
function stitched(part: StreamPart, cutUsage: Usage | undefined): StreamPart {
  if (part.type === 'usage') return { ...part, usage: summedUsage(cutUsage, part.usage) };
  if (part.type === 'finish' && part.usage) return { ...part, usage: summedUsage(cutUsage, part.usage) };
  return { ...part };
}

function summedUsage(cut: Usage | undefined, next: Usage): Usage {
  if (!cut) return next;
  const sum: Usage = { prompt_tokens: cut.prompt_tokens + next.prompt_tokens, completion_tokens: cut.completion_tokens + next.completion_tokens, total_tokens: cut.total_tokens + next.total_tokens };
  const cached = (cut.prompt_tokens_details?.cached_tokens ?? 0) + (next.prompt_tokens_details?.cached_tokens ?? 0);
  const written = (cut.prompt_tokens_details?.cache_write_tokens ?? 0) + (next.prompt_tokens_details?.cache_write_tokens ?? 0);
  if (cut.prompt_tokens_details || next.prompt_tokens_details) sum.prompt_tokens_details = { cached_tokens: cached, ...(written ? { cache_write_tokens: written } : {}) };
  const reasoning = (cut.completion_tokens_details?.reasoning_tokens ?? 0) + (next.completion_tokens_details?.reasoning_tokens ?? 0);
  if (cut.completion_tokens_details || next.completion_tokens_details) sum.completion_tokens_details = { reasoning_tokens: reasoning };
  return sum;
}

/** The built-in tap, after every plugin's. */
export function tapDefaultContinuation(hooks: PipelineHooks): void {
  hooks.continueStream.tapPromise({ name: 'switchyard:continuation', stage: STAGE.LAST }, (interruption, ctx) => continueStream(interruption, ctx, DEFAULT_MAX_CONTINUATIONS, 'switchyard:continuation'));
}
