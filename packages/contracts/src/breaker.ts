/**
 * @switchyard/plugin-circuit-breaker's words: the hooks it calls on each transition (health's
 * recovery and warm backups tap them) and the events an operator sees.
 */
import { defineHooks } from '@switchyard/core';
import { SyncHook } from 'tapable';

export const BREAKER_PLUGIN = '@switchyard/plugin-circuit-breaker';

export interface BreakerOpened {
  /** `endpoint/model`. */
  deployment: string;
  /** Clock ms when it half-opens. */
  until: number;
  reason: string;
  /** The transition happened on another instance sharing the store (relayed by pub/sub). */
  remote?: boolean;
}

export interface BreakerTransition {
  deployment: string;
  remote?: boolean;
}

/** Called by the breaker on every transition, local or relayed; tap to act on it (observers use the events). */
export const BREAKER_HOOKS = defineHooks(BREAKER_PLUGIN, () => ({
  open: new SyncHook<[BreakerOpened]>(['opened']),
  halfOpen: new SyncHook<[BreakerTransition]>(['transition']),
  close: new SyncHook<[BreakerTransition]>(['transition']),
}));

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    'breaker:open': [BreakerOpened];
    'breaker:half-open': [BreakerTransition];
    'breaker:close': [BreakerTransition];
  }
}
