/**
 * Words of routing that two policy plugins share without importing each other: the router
 * (capabilities, context windows, traffic shares) and model-limits (which may shorten a prompt
 * to fit a window the router would otherwise drop a candidate for).
 */
import { defineErrorCodes, defineRequestSlot, type CandidateRef, type CodesOf } from '@switchyard/core';

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

/**
 * A request reached its model's last-resort tier with `raceLastTier` on, and the race did not
 * start (plugin-hedge): `single-deployment` (the tier has no other deployment), `partner-unavailable`
 * (the others were tried already or filtered out: open breaker, cooling, budget), `retry-budget`
 * (the partner's retry budget is spent). The attempt ran alone.
 */
export interface RaceSkipped { requestId: string; candidate: CandidateRef; reason: 'single-deployment' | 'partner-unavailable' | 'retry-budget'; partner?: CandidateRef; tier?: string }

/**
 * A conversation with prompt-cache affinity (plugin-router) was answered by another deployment
 * than the one that answered its previous turn, which holds its prompt cache: that one failed,
 * was filtered out (unhealthy, open breaker) or left the configuration. Emitted once per move.
 */
export interface CacheLost { requestId: string; model: string; from: string; to: CandidateRef; caller?: string; source: ConversationSource }

/** What identified the conversation: the client's session id, its `prompt_cache_key`, a `user`, or a hash of its cached prefix. */
export type ConversationSource = 'conversation-id' | 'session' | 'prompt-cache-key' | 'user' | 'prefix';

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof ROUTING_ERRORS> {}
  interface SwitchyardEvents {
    'traffic:drift': [TrafficDrift];
    'race:skipped': [RaceSkipped];
    'cache:lost': [CacheLost];
  }
}
