/**
 * Mid-stream continuation per tier. The core continues a cut committed stream on a
 * `prefill`-capable candidate by default; a tier may turn that off (`continuation: false`: the
 * stream ends with its failure) or try more candidates (`maxContinuations`).
 */
import type { StreamPart } from '@switchyard/core';

export { continueStream, continuationCandidates, prefillRequest } from '@switchyard/core/internal';

/** A continuation with nothing in it: the stream ends with its original failure. */
export async function* noContinuation(): AsyncGenerator<StreamPart> {}
