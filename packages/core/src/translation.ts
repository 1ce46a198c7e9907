/**
 * The translation policy's disclosure: what a deployment is sent without, and which deployments
 * a request skipped and why. A client's request decoded by a dialect (request-origin.ts) holds
 * three kinds of parts: carried (translated for every vendor), hints (a vendor of another
 * dialect does without them: they are dropped for it) and capabilities (only a vendor of the
 * client's dialect can act on them: the others are skipped). A provider adds what it leaves out
 * itself (`ProviderV1.drops`). Nothing is dropped or skipped silently: the answer names what
 * its deployment did without (`ResponseInfo.dropped`, the gateway's `x-switchyard-dropped`),
 * `field:dropped` and `candidate:skipped` events carry both, and the final error of a request
 * whose attempts all failed names each skipped deployment.
 */
import type { ProviderV1 } from './provider.js';
import { requestOriginOf } from './request-origin.js';
import type { Candidate, ChatRequest, DroppedPart } from './types.js';

/** A deployment left out before any attempt: the part of the request it could not take, and why. */
export interface SkippedCandidate {
  readonly candidate: Candidate;
  /** The client's field (`context_management`, `tools[2]`). */
  readonly path: string;
  readonly reason: string;
  /** The translation table's entry, or `unsupported` (the provider's own check), or `unlisted`. */
  readonly feature: string;
}

/** A target whose hints are skipped, not dropped (`translate: strict`). */
export function isStrict(candidate: Candidate): boolean {
  return candidate.deployment.translate === 'strict';
}

/**
 * What `candidate` is sent without: the request's hints when its provider does not speak the
 * client's dialect, and what the provider itself leaves out. Undefined when nothing is.
 */
export function droppedFor(request: ChatRequest, candidate: Candidate, provider: ProviderV1 | undefined): readonly DroppedPart[] | undefined {
  const origin = requestOriginOf(request);
  const hints = origin?.hints;
  const own = provider?.drops?.(request, candidate);
  const foreign = hints && hints.length > 0 && !provider?.speaks?.(origin.format, candidate) ? hints : undefined;
  if (!own || own.length === 0) return foreign;
  return foreign ? foreign.concat(own) : own;
}

/** `x-switchyard-dropped`: each dropped feature once, in order (`context_management, cache_control`). */
export function droppedSummary(dropped: readonly DroppedPart[]): string {
  const names: string[] = [];
  for (const part of dropped) {
    const name = part.feature ?? part.path;
    if (!names.includes(name)) names.push(name);
  }
  return names.join(', ');
}

/** The final error's note on skipped deployments: `skipped: openai/gpt-4.1 (tools[2]: …)`. */
export function skippedSummary(skipped: readonly SkippedCandidate[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const s of skipped) {
    if (seen.has(s.candidate.deploymentId)) continue;
    seen.add(s.candidate.deploymentId);
    parts.push(`${s.candidate.deploymentId} (${s.path}: ${s.reason})`);
  }
  return `skipped before any attempt: ${parts.join('; ')}`;
}
