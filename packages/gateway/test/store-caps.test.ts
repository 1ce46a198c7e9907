/**
 * Stored Responses that live in this process are held within V8's heap: the default cap (1 GiB
 * of stored text) is more than a small machine's whole heap, and a gateway that reached it
 * stopped with an out-of-memory error, again at every start restoring its journal.
 */
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStateStore, type StateStore } from '@switchyard/core';
import { RecordKeepingStore } from '@switchyard/core/config';
import { JournalRecords } from '@switchyard/core/internal';
import { withStoreCapsHeld } from '../src/store-caps.js';
import { resolveServerOptions } from '../src/server-options.js';
import { answers, pipelineFor, startGateway, stopAll, vendor } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

const MiB = 1024 * 1024;
const defaults = resolveServerOptions({});

/** A store whose state lives elsewhere (Redis, as store-redis is): no `getManyNow`. */
function remoteStore(): StateStore {
  const inner = new MemoryStateStore();
  return { get: (k) => inner.get(k), getMany: (ks) => inner.getMany(ks), set: (k, v, t) => inner.set(k, v, t), delete: (k) => inner.delete(k), increment: (k, b, t) => inner.increment(k, b, t) } as StateStore;
}

afterEach(stopAll);

describe('stored Responses in this process', () => {
  it('are held to a quarter of the heap limit, the key cap within it, with one warning saying what was lowered and why', () => {
    const warnings: [Record<string, unknown>, string][] = [];
    const warn = (fields: Record<string, unknown>, message: string) => void warnings.push([fields, message]);
    // A 2 GiB machine's heap: about 512 MiB.
    const held = withStoreCapsHeld(defaults, new MemoryStateStore(), warn, 512 * MiB);
    expect(defaults.responseStore.maxBytes).toBe(1024 * MiB);
    // Each key keeps its share of the whole (64 MiB of 1 GiB by default): one tenant cannot fill what the others store in.
    expect(held.responseStore).toEqual({ ...defaults.responseStore, maxBytes: 128 * MiB, maxBytesPerKey: 8 * MiB });
    expect(warnings).toEqual([[{ event: 'response_store_capped', configuredMaxBytes: 1024 * MiB, maxBytes: 128 * MiB, heapLimitBytes: 512 * MiB }, expect.stringContaining('raise the heap with NODE_OPTIONS=--max-old-space-size')]]);
    expect(withStoreCapsHeld(defaults, new MemoryStateStore(), warn, 128 * MiB).responseStore).toMatchObject({ maxBytes: 32 * MiB, maxBytesPerKey: 2 * MiB });
    // A key allowed half of the whole keeps half: never more than the whole, never all of it.
    const halves = resolveServerOptions({ responseStore: { maxBytesPerKey: 512 * MiB, maxBytes: 1024 * MiB, maxConversationBytes: 4 * MiB } });
    expect(withStoreCapsHeld(halves, new MemoryStateStore(), warn, 512 * MiB).responseStore).toMatchObject({ maxBytes: 128 * MiB, maxBytesPerKey: 64 * MiB });
    // The rest of the server's settings are the configured ones.
    expect({ ...held, responseStore: defaults.responseStore }).toEqual(defaults);
  });

  it('in front of the records journal too; left as configured when the heap holds them, or when they live in Redis', () => {
    const warn = () => {
      throw new Error('no warning expected');
    };
    const journaled = new RecordKeepingStore(new MemoryStateStore(), new JournalRecords('/nonexistent/never-opened.journal'), { shared: false });
    expect(withStoreCapsHeld(defaults, journaled, () => undefined, 512 * MiB).responseStore.maxBytes).toBe(128 * MiB);
    expect(withStoreCapsHeld(defaults, new MemoryStateStore(), warn, 8192 * MiB)).toBe(defaults);
    expect(withStoreCapsHeld(defaults, remoteStore(), warn, 512 * MiB)).toBe(defaults);
    const sharedHot = new RecordKeepingStore(remoteStore(), new JournalRecords('/nonexistent/never-opened.journal'), { shared: true });
    expect(withStoreCapsHeld(defaults, sharedHot, warn, 512 * MiB)).toBe(defaults);
  });

  it('a gateway whose configured cap passes its heap says so at start', async () => {
    const upstream = await vendor(answers(['ok']));
    const logs = recordingLogger();
    const heap = getHeapStatistics().heap_size_limit;
    await startGateway(pipelineFor({ vendors: { v: upstream } }), { logger: logs, server: { responseStore: { maxBytesPerKey: 64 * MiB, maxBytes: heap, maxConversationBytes: 4 * MiB } } });
    expect(logs.lines.filter((line) => line.event === 'response_store_capped')).toEqual([expect.objectContaining({ level: 'warn', configuredMaxBytes: heap, maxBytes: Math.floor(heap / 4), heapLimitBytes: heap })]);
  });
});
