/**
 * Relays some of a pipeline's events to the other instances that share its StateStore, when
 * the store offers pub/sub (Redis). A relayed event is emitted on the receiving pipeline with
 * `remote: true`, and is never relayed again.
 */
import type { SwitchyardEventName, SwitchyardEvents } from './events.js';
import type { Pipeline } from './pipeline.js';
import { withField } from './copy-fields.js';

interface Relayed {
  event: SwitchyardEventName;
  payload: Record<string, unknown>;
}

/** Starts relaying `names` on `channel`; stops when the pipeline closes. False when the store cannot. */
export function relayEvents(pipeline: Pipeline, channel: string, names: readonly SwitchyardEventName[]): boolean {
  const { store, events } = pipeline;
  if (!store.publish || !store.subscribe) return false;
  const outgoing = names.map((event) => {
    const listener = (payload: Record<string, unknown>) => {
      if (payload.remote) return;
      store.publish!(channel, { event, payload } satisfies Relayed).catch((error: unknown) => events.emit('plugin-error', { plugin: 'switchyard:event-relay', stage: channel, error }));
    };
    events.on(event, listener as never);
    return () => events.off(event, listener as never);
  });
  const unsubscribe = store.subscribe(channel, (message) => {
    const { event, payload } = (message ?? {}) as Partial<Relayed>;
    if (!event || !names.includes(event) || typeof payload !== 'object' || payload === null) return;
    (events.emit as (e: string, p: unknown) => boolean)(event, withField(payload, 'remote', true) as unknown as SwitchyardEvents[typeof event][0]);
  });
  events.once('pipeline:close', () => {
    unsubscribe();
    for (const stop of outgoing) stop();
  });
  return true;
}
