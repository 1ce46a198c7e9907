/**
 * Scheduled replay of the durable queue on the pipeline's clock: every `everyMs`, the queued
 * requests are sent again (at most `maxPerRun`), the answered ones leave the queue and their
 * answers are appended to `out`. A lease in the pipeline's StateStore keeps two pipelines (a
 * reload, gateways on one store) from replaying the same file at once.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Pipeline } from '@switchyard/core';
import { PLUGIN_NAME } from './levels.js';
import { replayQueue } from './queue.js';

export interface ReplaySchedule {
  everyMs: number;
  maxPerRun: number;
  out?: string;
}

let holders = 0;

export function scheduleReplay(pipeline: Pipeline, file: string, schedule: ReplaySchedule): void {
  const { clock, events, store } = pipeline;
  const holder = `replay-${process.pid}-${++holders}`;
  const leaseKey = `switchyard:degrade:replay:${path.resolve(file)}`;
  const controller = new AbortController();
  let timer: ReturnType<typeof clock.setTimeout> | undefined;
  let closed = false;

  const arm = () => {
    if (closed) return;
    timer = clock.setTimeout(() => void run(), schedule.everyMs);
    // An idle pipeline's background work never keeps a process alive.
    (timer as { unref?: () => void }).unref?.();
  };

  const run = async () => {
    try {
      // The lease outlives a run that hangs only by one period.
      if (!(await store.acquireLease(leaseKey, holder, schedule.everyMs * 2))) return;
      try {
        const out = schedule.out;
        if (out) await mkdir(path.dirname(out), { recursive: true });
        const summary = await replayQueue(file, pipeline, {
          limit: schedule.maxPerRun,
          signal: controller.signal,
          onResult: out ? async ({ entry, ok, response }) => (ok ? appendFile(out, `${JSON.stringify({ id: entry.id, response })}\n`, 'utf8') : undefined) : undefined,
        });
        if (summary.replayed + summary.failed > 0) events.emit('queue:replay', { file, ...summary });
      } finally {
        await store.releaseLease(leaseKey, holder);
      }
    } catch (error) {
      if (!closed) events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'replay', error });
    } finally {
      arm();
    }
  };

  events.once('pipeline:close', () => {
    closed = true;
    if (timer !== undefined) clock.clearTimeout(timer);
    controller.abort();
  });
  arm();
}
