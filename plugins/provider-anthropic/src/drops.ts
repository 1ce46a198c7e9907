/**
 * What a Claude deployment is sent without (ProviderV1.drops), on every channel: the betas it does
 * not take (betas.ts) and, for a continuation, the thinking it was built without (continuation.ts).
 */
import type { Candidate, ChatRequest } from '@switchyard/core';
import type { DroppedPart } from '@switchyard/core/wire';
import { betaDrops } from './betas.js';
import { continuationDrops } from './continuation.js';

export function claudeDrops(request: ChatRequest, target: Candidate, defaultBetas?: ReadonlySet<string>): readonly DroppedPart[] | undefined {
  const betas = betaDrops(request, target, defaultBetas);
  const continuation = continuationDrops(request);
  return betas && continuation ? betas.concat(continuation) : (betas ?? continuation);
}
