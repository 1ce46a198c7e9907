/**
 * How far `switchyard serve` lets V8's old generation grow between full collections.
 *
 * By default V8 lets the old generation grow to up to 4× what was live after the last full
 * collection. That suits batch jobs, whose live heap grows. A gateway's live heap is its requests
 * in flight plus about 20 MiB; most of what reaches its old generation is request garbage, which
 * V8's default keeps around by the tens of MiB. A tighter limit means more frequent full
 * collections, each over a small heap: CPU, and a longer latency tail. Measured with
 * `pnpm bench:serve` (docs/deploy.md has the table, 2026-12-04): 20 % peaked at 128–139 MiB
 * against 184–209 for V8's default, for 104–111 against 92–94 µs of CPU per request, and serve
 * kept 20 % until a coding agent's turn was measured (2026-12-07, `pnpm bench:ab`, 110 KB
 * requests): each of them promotes its body and parsed request, 20 % then runs a full collection
 * every few megabytes, and a turn cost 870–960 µs of CPU against 360–640 at 50 %. Short requests
 * cost the same at both (70–80 µs for Chat, 90 for a stream), and 50 % peaks 15–30 MiB higher
 * (161–171 MiB against 136–156, the thin proxy's 159–179). Serve keeps 50 %: agents are the
 * traffic, and a memory target bought with twice their CPU is the wrong trade.
 *
 * V8 reads this flag each time it sets the next collection's limit, so setting it at start-up
 * takes effect without a restart. The young generation cannot be resized this way: its size is
 * fixed when V8 starts, and `--max-semi-space-size` on the node command line trades CPU for
 * memory (docs/deploy.md).
 */
import { setFlagsFromString } from 'node:v8';

export const SERVE_HEAP_GROWING_PERCENT = 50;

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
