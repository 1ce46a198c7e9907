/** What the CPU benches share: an upstream answered from memory, and CPU timing of a piece of work. */
import type { Transport } from '@switchyard/core';

/** Answers every call at once with `answer` (JSON text): no sockets, so only CPU is measured. */
export function memoryTransport(answer: string): Transport {
  return {
    async request() {
      let sent = false;
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: {
          async *[Symbol.asyncIterator]() {
            if (!sent) {
              sent = true;
              yield Buffer.from(answer);
            }
          },
        },
        text: async () => answer,
        discard: () => undefined,
      };
    },
  };
}

/** This process's CPU µs (user + system) spent running `fn`. */
export function cpuMicros(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

export async function cpuMicrosAsync(fn: () => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
