/** @switchyard/plugin-cache's words: the stale answer it offers the degrade plan, its lookup event. */
import { defineRequestSlot, type ChatResponse } from '@switchyard/core';

/** The cache's stale answer for one request; a degrade plan that lists `stale-cache` claims it to serve it in its own order. */
export interface StaleAnswerOffer {
  lookup(): Promise<ChatResponse | undefined>;
  claimed: boolean;
}

/** Set by @switchyard/plugin-cache in classify; read by its degrade tap and by @switchyard/plugin-degrade. */
export const STALE_ANSWER = defineRequestSlot<StaleAnswerOffer>('switchyard:stale-answer');

/** A response-cache lookup: a fresh hit, a miss, or an expired answer served because every candidate failed. */
export interface CacheLookup { requestId: string; result: 'hit' | 'miss' | 'stale' }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    'cache:lookup': [CacheLookup];
  }
}
