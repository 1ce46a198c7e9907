import { afterEach, describe, expect, it } from 'vitest';
import { runWithVirtualTime, SwitchyardError, VirtualClock, type StreamPart, type Transport, type TransportRequest } from '../src/index.js';
import { createUndiciTransport } from '../src/entry-config.js';
import { AbortLink } from '../src/internal.js';
import { sseBody, textChunks, type Handler } from './support/loopback.js';
import { hello, pipelineOver, type Fixture } from './support/fixture-pipeline.js';

const sseHead = { 'content-type': 'text/event-stream' };
const frame = (c: unknown) => `data: ${JSON.stringify(c)}\n\n`;
const healthy = (words = ['Hel', 'lo']): Handler => (_req, res) => {
  res.writeHead(200, sseHead);
  res.end(sseBody(textChunks(words)));
};
/** Sends headers and then nothing, keeping the socket open. */
const silentAfterHeaders: Handler = (_req, res) => {
  res.writeHead(200, sseHead);
  res.flushHeaders();
};
/** Sends `n` tokens, then stalls with the socket open. */
const stallAfter = (n: number): Handler => (_req, res) => {
  res.writeHead(200, sseHead);
  res.write(textChunks(Array.from({ length: n }, (_, i) => `t${i} `), false).map(frame).join(''));
};

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function drain(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const p of stream) parts.push(p);
  return parts;
}
const textOf = (parts: StreamPart[]) => parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');

describe('streaming contract', () => {
  it('a failure before the commit point fails over invisibly', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, sseHead);
        res.end(frame({ error: { message: 'overloaded before first token' } }));
      },
      healthy(['ok']),
    ]);
    const stream = await fx.pipeline.stream(hello);
    expect(stream.info.endpoint).toBe('u1');
    const parts = await drain(stream);
    expect(parts.some((p) => p.type === 'error')).toBe(false);
    expect(textOf(parts)).toBe('ok');
  });

  it('a failure after the commit point ends the stream with an error part, never a clean finish', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, sseHead);
        res.end(frame(textChunks(['partial'], false)[0]) + frame({ error: { message: 'died mid-answer' } }));
      },
      healthy(['never used']),
    ]);
    const parts = await drain(await fx.pipeline.stream(hello));
    expect(textOf(parts)).toBe('partial');
    const last = parts[parts.length - 1];
    expect(last.type).toBe('error');
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    expect(fx.servers[1].requests).toHaveLength(0);
  });

  it('a close without the finish signal is a stream-cut, however clean the close', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, sseHead);
        res.end(textChunks(['a', 'b'], false).map(frame).join(''));
      },
    ]);
    const parts = await drain(await fx.pipeline.stream(hello));
    const last = parts[parts.length - 1];
    expect(last).toMatchObject({ type: 'error', error: { kind: 'stream-cut' } });
  });

  it('a close before the commit point without a finish fails over', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, sseHead);
        res.end(': just a comment\n\n');
      },
      healthy(['second']),
    ]);
    const stream = await fx.pipeline.stream(hello);
    expect(stream.info.endpoint).toBe('u1');
    expect(textOf(await drain(stream))).toBe('second');
  });

  it('finish then close without [DONE] is finalised as a success at once', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, sseHead);
        res.end(sseBody(textChunks(['done']), false));
      },
    ]);
    const parts = await drain(await fx.pipeline.stream(hello));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('finish then a stalled connection is finalised when the idle limit passes', async () => {
    const clock = new VirtualClock();
    fx = await pipelineOver(
      [
        (_req, res) => {
          res.writeHead(200, sseHead);
          res.write(sseBody(textChunks(['all', ' there']), false));
        },
      ],
      { clock },
    );
    const parts = await runWithVirtualTime(clock, fx.pipeline.stream(hello).then(drain), { stepMs: 1000 });
    expect(textOf(parts)).toBe('all there');
    expect(parts[parts.length - 1].type).toBe('finish');
  });

  it('malformed events are skipped and counted, never passed on', async () => {
    fx = await pipelineOver([
      (_req, res) => {
        res.writeHead(200, sseHead);
        const [a, b] = textChunks(['x', 'y']);
        res.end(frame(a) + 'data: {"not json\n\n' + frame(b) + 'data: [DONE]\n\n');
      },
    ]);
    const malformed: string[] = [];
    fx.pipeline.events.on('stream:malformed', (e) => malformed.push(e.data));
    const parts = await drain(await fx.pipeline.stream(hello));
    expect(textOf(parts)).toBe('xy');
    expect(malformed).toEqual(['{"not json']);
  });

  it('a consumer that stops at the error part leaves no timer of the request behind', async () => {
    const clock = new VirtualClock();
    fx = await pipelineOver([(_req, res) => {
      res.writeHead(200, sseHead);
      res.end(frame(textChunks(['partial'], false)[0]) + frame({ error: { message: 'died mid-answer' } }));
    }], { clock });
    const stream = await runWithVirtualTime(clock, fx.pipeline.stream(hello));
    const seen: StreamPart[] = [];
    for await (const part of stream) {
      seen.push(part);
      if (part.type === 'error') break;
    }
    expect(seen.at(-1)?.type).toBe('error');
    // The request's timer went with the stream's end, not at its deadline.
    expect(clock.pendingTimers()).toBe(0);
  });

  it('commits on the first token, and one timer serves the whole request', async () => {
    const clock = new VirtualClock();
    fx = await pipelineOver([stallAfter(3)], { clock });
    const stream = await runWithVirtualTime(clock, fx.pipeline.stream(hello));
    expect(clock.pendingTimers()).toBe(1);
    await stream.cancel();
  });
});

describe('time limits on the injected clock', () => {
  it('a silent first token moves to the next candidate and is not retried on the same route', async () => {
    const clock = new VirtualClock();
    fx = await pipelineOver([silentAfterHeaders, healthy(['rescued'])], { clock });
    const started = clock.now();
    const stream = await runWithVirtualTime(clock, fx.pipeline.stream(hello), { stepMs: 250 });
    expect(stream.info.endpoint).toBe('u1');
    expect(clock.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(clock.now() - started).toBeLessThan(11_000);
    expect(fx.servers[0].requests).toHaveLength(1);
    expect(textOf(await drain(stream))).toBe('rescued');
  });

  it('a per-request first-token limit overrides the default (reasoning models)', async () => {
    const clock = new VirtualClock();
    fx = await pipelineOver([silentAfterHeaders, healthy()], { clock });
    const started = clock.now();
    await runWithVirtualTime(clock, fx.pipeline.stream({ ...hello, switchyard: { timeouts: { firstTokenMs: 2000, headersMs: 2000 } } }), { stepMs: 100 });
    expect(clock.now() - started).toBeLessThan(2600);
  });

  it('an idle stall after the commit point ends the stream with idle-timeout', async () => {
    const clock = new VirtualClock();
    fx = await pipelineOver([stallAfter(20), healthy()], { clock });
    const parts = await runWithVirtualTime(clock, fx.pipeline.stream(hello).then(drain), { stepMs: 1000 });
    expect(textOf(parts)).toMatch(/^t0 t1 .* t19 $/);
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'idle-timeout' } });
    expect(fx.servers[1].requests).toHaveLength(0);
  });

  it('a non-streaming attempt over its limit fails over; the request deadline bounds everything', async () => {
    const clock = new VirtualClock();
    const hang: Handler = () => undefined;
    fx = await pipelineOver([hang, hang, hang], { clock });
    const started = clock.now();
    const err = await runWithVirtualTime(clock, fx.pipeline.chat(hello, { deadlineMs: 90_000 }).catch((e) => e), { stepMs: 2000 });
    expect(err.kind).toBe('all-candidates-failed');
    expect(err.status).toBe(504);
    // No response headers within the 30 s first-byte limit: each silent endpoint is left at 30 s,
    // and the deadline ends the third.
    const headers = ['timeout', 'no response headers within 30000 ms'];
    expect(err.attempts.map((a: { kind: string; message: string }) => [a.kind, a.message])).toEqual([headers, headers, ['timeout', 'request deadline exceeded']]);
    expect(clock.now() - started).toBeGreaterThanOrEqual(90_000);
    expect(clock.now() - started).toBeLessThan(93_000);
    expect(fx.servers[2].requests).toHaveLength(1);
  });
});

describe('cancellation', () => {
  /** An upstream that sends stream headers and then nothing; `closed()` tells whether its socket closed. */
  async function silentAfterHeaders(): Promise<{ headersSent: () => boolean; closed: () => boolean }> {
    let headersSent = false;
    let upstreamClosed = false;
    fx = await pipelineOver([
      (req, res) => {
        res.writeHead(200, sseHead);
        res.flushHeaders();
        headersSent = true;
        req.socket.on('close', () => (upstreamClosed = true));
      },
    ]);
    return { headersSent: () => headersSent, closed: () => upstreamClosed };
  }

  for (const source of ['AbortSignal', 'AbortLink'] as const) {
    it(`a caller abort (${source}) cancels the upstream attempt with the caller's reason`, async () => {
      const upstream = await silentAfterHeaders();
      const reason = new SwitchyardError('cancelled', 'the gateway is shutting down', { code: 'SWITCHYARD_ERR_SHUTTING_DOWN', status: 503 });
      const controller = source === 'AbortSignal' ? new AbortController() : new AbortLink();
      const promise = fx!.pipeline.stream(hello, { signal: controller instanceof AbortLink ? controller : controller.signal });
      await expect.poll(upstream.headersSent, { timeout: 5_000, interval: 5 }).toBe(true);
      controller.abort(reason);
      const err = await promise.catch((e) => e);
      expect(err).toBe(reason);
      await expect.poll(upstream.closed, { timeout: 5_000, interval: 5 }).toBe(true);
    });
  }

  it("a transport that reads `signal` gets a real one, aborted with the caller's reason, from one getter every request shares", async () => {
    const seen: TransportRequest[] = [];
    const inner = createUndiciTransport();
    // A custom transport: it reads the signal (the built-in one listens on `abort` and never makes one).
    const transport: Transport = {
      request(req) {
        seen.push(req);
        req.signal.addEventListener('abort', () => undefined);
        return inner.request(req);
      },
      close: () => inner.close!(),
    };
    fx = await pipelineOver([(_req, res) => (res.writeHead(200, sseHead), res.flushHeaders())], { transport });
    const reason = new SwitchyardError('cancelled', 'the caller left', { code: 'SWITCHYARD_ERR_CANCELLED' });
    const first = new AbortController();
    const second = new AbortController();
    const firstCall = fx.pipeline.stream(hello, { signal: first.signal });
    const secondCall = fx.pipeline.stream(hello, { signal: second.signal });
    await expect.poll(() => seen.length, { timeout: 5_000, interval: 5 }).toBe(2);
    first.abort(reason);
    expect(await firstCall.catch((e) => e)).toBe(reason);
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(seen[0]!.signal.reason).toBe(reason);
    expect(seen[1]!.signal.aborted).toBe(false);
    // No getter made per request: one in an object literal, beside a closure over the attempt, kept every attempt alive past its request.
    const getterOf = (req: TransportRequest) => {
      for (let at: object | null = req; at; at = Object.getPrototypeOf(at)) {
        const descriptor = Object.getOwnPropertyDescriptor(at, 'signal');
        if (descriptor) return { own: at === req, get: descriptor.get };
      }
      return undefined;
    };
    expect(getterOf(seen[0]!)?.own).toBe(false);
    expect(getterOf(seen[0]!)?.get).toBe(getterOf(seen[1]!)?.get);
    second.abort();
    expect((await secondCall.catch((e) => e)).kind).toBe('cancelled');
    expect(seen[1]!.signal.aborted).toBe(true);
  });

  it('a caller abort without a reason is a plain cancellation', async () => {
    const upstream = await silentAfterHeaders();
    const controller = new AbortController();
    const promise = fx!.pipeline.stream(hello, { signal: controller.signal });
    await expect.poll(upstream.headersSent, { timeout: 5_000, interval: 5 }).toBe(true);
    controller.abort();
    const err = await promise.catch((e) => e);
    expect(err.kind).toBe('cancelled');
    await expect.poll(upstream.closed, { timeout: 5_000, interval: 5 }).toBe(true);
  });

  it('a consumer that stops reading aborts the upstream stream', async () => {
    let upstreamClosed = false;
    fx = await pipelineOver([
      (req, res) => {
        req.socket.on('close', () => (upstreamClosed = true));
        stallAfter(5)(req, res, '');
      },
    ]);
    const stream = await fx.pipeline.stream(hello);
    for await (const part of stream) if (part.type === 'text-delta') break;
    await expect.poll(() => upstreamClosed, { timeout: 5_000, interval: 5 }).toBe(true);
  });
});
