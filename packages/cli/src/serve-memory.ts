/**
 * How far `switchyard serve` lets V8's old generation grow between full collections.
 *
 * By default V8 lets the old generation grow to up to 4× what was live after the last full
 * collection. That suits batch jobs, whose live heap grows. A gateway's live heap is its requests
 * in flight plus about 20 MiB; most of what reaches its old generation is request garbage, which
 * V8's default keeps around by the tens of MiB. A tighter limit means more frequent full
 * collections, each over a small heap: CPU, and a longer latency tail. Measured with
 * `pnpm bench:serve` (docs/deploy.md has the table, 2026-12-04): 20 % peaks at 128–139 MiB
 * against 184–209 for V8's default, for 104–111 against 92–94 µs of CPU per request. 50 % was
 * 5–8 MiB higher with its CPU within noise of 20 % in one A/B (4–13 % lower in another), so serve
 * keeps 20 %: memory is the tighter of its targets.
 *
 * V8 reads this flag each time it sets the next collection's limit, so setting it at start-up
 * takes effect without a restart. The young generation cannot be resized this way: its size is
 * fixed when V8 starts, and `--max-semi-space-size` on the node command line trades CPU for
 * memory (docs/deploy.md).
 */
import { setFlagsFromString } from 'node:v8';

export const SERVE_HEAP_GROWING_PERCENT = 20;

const OWN_SETTING = /--heap[-_]growing[-_]percent\b/;

/**
 * Sets the growth limit unless the process was started with its own `--heap-growing-percent`.
 * `--heap-growing-percent=0` brings back V8's own heuristics. Returns whether it set the limit.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions: string | undefined = process.env.NODE_OPTIONS): boolean {
  if (execArgv.some((arg) => OWN_SETTING.test(arg)) || OWN_SETTING.test(nodeOptions ?? '')) return false;
  setFlagsFromString(`--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`);
  return true;
}
