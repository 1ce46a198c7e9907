/**
 * The convention by which the degrade plugin places the cache's stale answer among its levels
 * without importing this package: in classify the cache fills core's typed request slot
 * `REQUEST_SLOT.staleAnswer`. A plugin that orders the stale answer itself sets
 * `claimed = true` and calls `lookup()` at its position; otherwise the cache answers on its own
 * at the end of the degrade stage.
 */
import { REQUEST_SLOT, type StaleAnswerOffer } from '@switchyard/contracts';

export const STALE_ANSWER_SLOT = REQUEST_SLOT.staleAnswer.name;

export type StaleAnswerSlot = StaleAnswerOffer;
