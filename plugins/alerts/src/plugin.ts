/**
 * The alerts plugin: pipeline events become incidents (rules.ts), each announced once per
 * incident through the incident book (incidents.ts), then formatted and sent per channel from
 * a bounded queue (delivery.ts). Nothing here sits on a request's path.
 */
import { declareDurableKeys, definePlugin, type Pipeline } from '@switchyard/core';
import { accepts, channelLabel } from './channels/index.js';
import { ChannelQueue, type DeliveryStats } from './delivery.js';
import { IncidentBook } from './incidents.js';
import type { Notice } from './notice.js';
import { alertsOptionsSchema, type AlertsOptions, type AlertsOptionsInput } from './options.js';
import { watchPipeline } from './rules.js';

export const PLUGIN_NAME = '@switchyard/plugin-alerts';

export interface AlertsHandle {
  /** Resolves once every notice handed to the channels so far was sent or given up on. */
  settled(): Promise<void>;
  /** Per channel label: sent, failed (after retries) and dropped (queue full). */
  stats(): Record<string, DeliveryStats>;
}

const handles = new WeakMap<Pipeline, AlertsHandle>();

export function getAlerts(pipeline: Pipeline): AlertsHandle | undefined {
  return handles.get(pipeline);
}

export const alerts = definePlugin<AlertsOptions, AlertsOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: alertsOptionsSchema,
  apply(pipeline, options) {
    const { clock, events } = pipeline;
    const onError = (error: unknown) => events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'alert', error });
    const queues = options.channels.map((channel, i) => ({ channel, queue: new ChannelQueue(channel, channelLabel(channel, i), options.delivery, clock, onError) }));
    const announce = (notice: Notice) => {
      for (const { channel, queue } of queues) if (accepts(channel, notice)) queue.enqueue(notice);
    };
    // Incidents in flight are durable: a restart must not open (and page) them a second time.
    declareDurableKeys(pipeline.store, PLUGIN_NAME, { records: [`${options.storePrefix}:incident:`] });
    const book = new IncidentBook(pipeline.store, clock, options.storePrefix, options.repeatMs, announce);
    const detach = watchPipeline(pipeline, options, book, onError);

    let timer = clock.setTimeout(function tick() {
      void book.remind().catch(onError);
      timer = clock.setTimeout(tick, options.repeatMs);
    }, options.repeatMs);

    handles.set(pipeline, {
      async settled() {
        await book.settled();
        await Promise.all(queues.map((q) => q.queue.settled()));
      },
      stats: () => Object.fromEntries(queues.map(({ queue }) => [queue.label, { ...queue.stats }])),
    });
    events.once('pipeline:close', () => {
      clock.clearTimeout(timer);
      detach();
      // Notices already queued are still delivered; a reload's new pipeline takes over from here.
    });
  },
});
