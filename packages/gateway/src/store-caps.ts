/**
 * The caps of stored Responses a gateway applies (`server.responseStore`). A store whose state
 * lives in this process (`StateStore.getManyNow`: the in-memory store, alone or in front of the
 * records journal) keeps every stored answer in V8's heap, whose limit node sets from the
 * machine's memory: 4 GiB here, about 500 MiB on a 2 GiB VM. The default cap, 1 GiB of stored
 * text, is more than a small machine's whole heap: a gateway that stored that much stopped with
 * an out-of-memory error, and again at every start, restoring its journal into memory. There the
 * caps are held to a quarter of the heap limit (a stored character takes one byte, two outside
 * Latin-1, and its record and keys more), each key's in the same proportion, and the gateway says
 * so once.
 */
import { getHeapStatistics } from 'node:v8';
import type { StateStore } from '@switchyard/core';
import type { StoredObjectCaps } from '@switchyard/core/dialect';
import type { ServerOptions } from './server-options.js';

/** The share of V8's heap limit stored answers may take when they live in this process. */
const IN_PROCESS_HEAP_SHARE = 0.25;

/** `server` with its stored Responses' caps held for `store`, warning once when they were lowered. */
export function withStoreCapsHeld(server: Readonly<ServerOptions>, store: StateStore, warn: (fields: Record<string, unknown>, message: string) => void, heapLimitBytes = getHeapStatistics().heap_size_limit): Readonly<ServerOptions> {
  const configured = server.responseStore;
  const most = Math.floor(heapLimitBytes * IN_PROCESS_HEAP_SHARE);
  if (!store.getManyNow || configured.maxBytes <= most) return server;
  // A key keeps its configured share of the whole (1/16 by default): one tenant filling its own
  // allowance must still leave the others theirs.
  const perKey = Math.max(1, Math.floor((configured.maxBytesPerKey * most) / configured.maxBytes));
  const caps: StoredObjectCaps = { ...configured, maxBytes: most, maxBytesPerKey: Math.min(configured.maxBytesPerKey, perKey) };
  warn(
    { event: 'response_store_capped', configuredMaxBytes: configured.maxBytes, maxBytes: most, heapLimitBytes },
    `stored Responses live in this process's heap (limit ${heapLimitBytes} bytes): server.responseStore.maxBytes ${configured.maxBytes} lowered to ${most}; keep them in Redis (store.use), or raise the heap with NODE_OPTIONS=--max-old-space-size`,
  );
  return { ...server, responseStore: caps };
}
