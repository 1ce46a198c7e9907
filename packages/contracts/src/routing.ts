/**
 * Words of routing that two policy plugins share without importing each other: the router
 * (capabilities, context windows, traffic shares) and model-limits (which may shorten a prompt
 * to fit a window the router would otherwise drop a candidate for).
 */
import { defineErrorCodes, defineRequestSlot, type CodesOf } from '@switchyard/core';

export const ROUTING_ERRORS = defineErrorCodes('@switchyard/contracts', {
  /** A prompt above the context window of every deployment of the model. */
  SWITCHYARD_ERR_CONTEXT_WINDOW: 'context-length',
});

/**
 * Candidate ids a route filter will shorten the prompt for to fit their context window
 * (@switchyard/plugin-model-limits with `truncate`); the router does not drop them for their window.
 */
export const SHORTENABLE = defineRequestSlot<Set<string>>('switchyard:shortenable');

/** A logical model's traffic shares left (or came back within) their declared target's tolerance (plugin-router). */
export interface TrafficDrift { model: string; drifting: boolean; windowMs: number; requests: number; shares: Record<string, { target: number; observed: number }> }

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof ROUTING_ERRORS> {}
  interface SwitchyardEvents {
    'traffic:drift': [TrafficDrift];
  }
}
