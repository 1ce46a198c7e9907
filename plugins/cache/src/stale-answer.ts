/**
 * The convention by which the degrade plugin places the cache's stale answer among its levels
 * without importing this package: in classify the cache puts a slot into
 * `ctx.state['switchyard:stale-answer']`. A plugin that orders the stale answer itself sets
 * `claimed = true` and calls `lookup()` at its position; otherwise the cache answers on its own
 * at the end of the degrade stage.
 */
import type { ChatResponse } from '@switchyard/core';

export const STALE_ANSWER_SLOT = 'switchyard:stale-answer';

export interface StaleAnswerSlot {
  /** The stored answer for this request, labelled `cached`/`stale`, or undefined. */
  lookup(): Promise<ChatResponse | undefined>;
  claimed: boolean;
}
