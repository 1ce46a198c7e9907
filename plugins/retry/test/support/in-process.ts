/**
 * An in-process Transport for policy tests that need many requests on virtual time: each
 * endpoint (by base URL host) answers from a script. The HTTP path itself is covered by the
 * loopback scenario suites.
 */
import { SwitchyardError, type Transport, type TransportRequest } from '@switchyard/core';

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** `reset` = the connection dies before headers; `hang` = never answers until aborted. */
export type Script = (call: { host: string; n: number; request: TransportRequest; body: { model: string } }) => ScriptedAnswer | 'reset' | 'hang';

export interface ScriptedTransport extends Transport {
  calls: { host: string; model: string; at: number }[];
  count(host: string): number;
}

export function scriptedTransport(script: Script, now: () => number): ScriptedTransport {
  const calls: ScriptedTransport['calls'] = [];
  const perHost = new Map<string, number>();
  return {
    calls,
    count: (host) => calls.filter((c) => c.host === host).length,
    async request(request) {
      const host = new URL(request.url).host;
      const n = (perHost.get(host) ?? 0) + 1;
      perHost.set(host, n);
      const body = JSON.parse(request.body ?? '{}') as { model: string };
      calls.push({ host, model: body.model, at: now() });
      const answer = script({ host, n, request, body });
      if (answer === 'reset') throw new SwitchyardError('network', 'connection failed: ECONNRESET socket hang up');
      if (answer === 'hang') {
        return new Promise((_, reject) => {
          const fail = () => reject(request.signal.reason);
          if (request.signal.aborted) fail();
          else request.signal.addEventListener('abort', fail, { once: true });
        });
      }
      const text = JSON.stringify(answer.body ?? {});
      return {
        status: answer.status,
        headers: { 'content-type': 'application/json', ...answer.headers },
        body: (async function* () {
          yield new TextEncoder().encode(text);
        })(),
        discard: () => undefined,
      };
    },
  };
}

export function ok(text = 'ok', model = 'm'): ScriptedAnswer {
  return { status: 200, body: { id: 'c', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } };
}

export function fail(status: number, message = `status ${status}`, extra: { code?: string; headers?: Record<string, string> } = {}): ScriptedAnswer {
  return { status, headers: extra.headers, body: { error: { message, code: extra.code } } };
}
