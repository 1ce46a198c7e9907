/**
 * Memory a load leaves behind (issue 34: "after each load, heapUsed after a forced GC is back
 * within 10 MiB of its baseline"). V8's `gc` is exposed without a command-line flag: the flag
 * set at run time, then the function taken from a fresh context. RSS is reported, not asserted.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export const HEAP_SLACK = 10 * 1024 * 1024;

let exposed: (() => void) | undefined;

export function forcedGc(): () => void {
  if (!exposed) {
    v8.setFlagsFromString('--expose-gc');
    exposed = vm.runInNewContext('gc') as () => void;
  }
  return exposed;
}

/** heapUsed after a full collection, once the sockets and timers closed just now have let go. */
export async function settledHeap(): Promise<number> {
  const gc = forcedGc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** What a load left on the heap: `grown` bytes above the baseline taken before it, logged as `label`. */
export async function heapGrowth(label: string, baseline: number): Promise<number> {
  const grown = (await settledHeap()) - baseline;
  console.info(`${label}: heapUsed after GC ${(grown / 1048576).toFixed(2)} MiB above its baseline; rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`);
  return grown;
}
