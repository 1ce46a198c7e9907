/**
 * An in-process transport whose upstreams answer after a delay on the virtual clock, so latency
 * based routing is tested on virtual time. Sockets are covered by the loopback tests.
 */
import { sleep, type Clock, type Transport, type VirtualClock } from '@switchyard/core';

export interface ScriptedAnswer {
  status?: number;
  body: unknown;
  delayMs?: number;
}

export interface ScriptedCall {
  /** The endpoint host label: `http://<host>/v1` → `<host>`. */
  host: string;
  url: string;
  body: Record<string, unknown>;
}

export function scriptedTransport(clock: Clock, answer: (call: ScriptedCall) => ScriptedAnswer): Transport & { calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = [];
  return {
    calls,
    async request(req) {
      const call: ScriptedCall = { host: new URL(req.url).hostname, url: req.url, body: req.body ? JSON.parse(req.body) : {} };
      calls.push(call);
      const { status = 200, body, delayMs = 0 } = answer(call);
      await sleep(clock, delayMs, req.signal);
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      return {
        status,
        headers: { 'content-type': 'application/json' },
        body: (async function* () {
          yield bytes;
        })(),
        discard: () => undefined,
      };
    },
  };
}

export function okCompletion(model: string, text = 'ok'): unknown {
  return { id: 'cmpl', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] };
}

/** Runs `work` to completion, firing virtual timers only once the real microtask queue is idle. */
export async function settle<T>(clock: VirtualClock, work: Promise<T>): Promise<T> {
  let done = false;
  const tracked = work.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    if (done) break;
    if (!(await clock.next())) await new Promise((resolve) => setImmediate(resolve));
  }
  return tracked;
}
