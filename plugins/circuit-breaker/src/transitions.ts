/**
 * A breaker transition, said twice: to the plugins that act on it, through the breaker's
 * published hooks (`BREAKER_HOOKS` in @switchyard/contracts: health's recovery, warm backups),
 * and to observers, as events. Transitions of other instances sharing the store arrive as
 * relayed events; they are passed on to the hooks here, so a tapper sees every transition once.
 */
import { BREAKER_HOOKS } from '@switchyard/contracts';
import { type Pipeline } from '@switchyard/core';
import { relayEvents } from '@switchyard/core/internal';
import type { Step } from './state-machine.js';

export function announceTransitions(pipeline: Pipeline): (deploymentId: string, step: Step) => void {
  const hooks = BREAKER_HOOKS.of(pipeline);
  const { events } = pipeline;
  // Breaker records are shared through the store already; the transitions travel by pub/sub.
  if (relayEvents(pipeline, 'breaker', ['breaker:open', 'breaker:half-open', 'breaker:close'])) {
    events.on('breaker:open', (e) => void (e.remote && hooks.open.call(e)));
    events.on('breaker:half-open', (e) => void (e.remote && hooks.halfOpen.call(e)));
    events.on('breaker:close', (e) => void (e.remote && hooks.close.call(e)));
  }
  return (deployment, step) => {
    if (step.transition === 'open') {
      const opened = { deployment, until: step.record.openUntil, reason: step.reason ?? 'failures' };
      hooks.open.call(opened);
      events.emit('breaker:open', opened);
    } else if (step.transition === 'half-open') {
      hooks.halfOpen.call({ deployment });
      events.emit('breaker:half-open', { deployment });
    } else if (step.transition === 'close') {
      hooks.close.call({ deployment });
      events.emit('breaker:close', { deployment });
    }
  };
}
