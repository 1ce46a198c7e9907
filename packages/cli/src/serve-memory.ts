/**
 * How far `switchyard serve` lets V8's old generation grow between full collections.
 *
 * By default V8 lets the old generation grow to up to 4× what was live after the last full
 * collection. That suits batch jobs, whose live heap grows. A gateway's live heap is its requests
 * in flight plus about 20 MiB; most of what reaches its old generation is request garbage. Under
 * load V8 therefore kept 30–80 MiB of dead objects between collections. Growing by 20 % instead
 * costs more frequent full collections, each over a small heap: the higher the request rate, the
 * more CPU. Measured with the pnpm bench:gateway contenders (2 cores, loopback):
 *
 * - c = 32, instant answers, 5 000–6 000 req/s: 153–174 → 122–125 MiB; 10–25 % more CPU (11 full
 *   collections per 35 000 requests instead of 2, about 60 ms of marking each, most of it on
 *   V8's background threads).
 * - c = 256, answers after 200 ms (a vendor's think time): 198–204 → 130 MiB; 3–10 % more CPU.
 * - c = 128, instant answers, 4 000–5 000 req/s: 150–158 → 128 MiB; 10–30 % more CPU.
 *
 * V8 reads this flag each time it sets the next collection's limit, so setting it at start-up
 * takes effect without a restart. The young generation cannot be resized this way: its size is
 * fixed when V8 starts. `--max-semi-space-size=4` on the node command line saves about another
 * 20 MiB but cost 30–40 % more CPU at c = 256, so serve leaves it to the operator (docs/deploy.md).
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
