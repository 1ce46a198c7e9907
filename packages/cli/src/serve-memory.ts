/**
 * How far `switchyard serve` lets V8's old generation grow between full collections.
 *
 * By default V8 lets the old generation grow to up to 4× what was live after the last full
 * collection. That suits batch jobs, whose live heap grows. A gateway's live heap is its requests
 * in flight plus about 20 MiB; most of what reaches its old generation is request garbage, which
 * V8's default keeps around by the tens of MiB. A tighter limit means more frequent full
 * collections, each over a small heap: CPU, and a longer latency tail. Measured with
 * `pnpm bench:serve` (the production bundle, four plugins, the access log; 2 cores, loopback,
 * instant answers, c = 32 and 128, 2026-12-04):
 *
 * | growth limit | peak RSS | CPU µs per request | p99 at c = 32 / 128 |
 * |---|---:|---:|---:|
 * | V8's default | 184–209 MiB | 92–94 | 6 / 20 ms |
 * | 100 % | 149–155 MiB | 92–99 | 7 / 22 ms |
 * | 50 % | 135–140 MiB | 96–106 | 8 / 26 ms |
 * | 20 % (serve) | 128–139 MiB | 104–111 | 9.5 / 30 ms |
 *
 * A second A/B of 20 against 50 % put the CPU within noise (113–117 against 108–120 µs) and 50 %
 * 5–8 MiB higher, so serve keeps 20 %: memory is the tighter of its targets. V8 reads this flag each time it sets the next collection's limit, so setting it at
 * start-up takes effect without a restart. The young generation cannot be resized this way: its
 * size is fixed when V8 starts, and `--max-semi-space-size` on the node command line trades CPU
 * for memory (docs/deploy.md).
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
