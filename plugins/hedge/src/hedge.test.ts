import { SERVICE } from '@switchyard/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, provideService, runWithVirtualTime, VirtualClock, type AttemptRecord, type Pipeline, type StreamPart } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { completion, sseBody, startLoopback, textChunks, type Handler, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { hedge, type HedgeOptionsInput } from './index.js';
import { LatencySamples } from './latency-samples.js';
import { hedgeDelay } from './hedge.js';

const sseHead = { 'content-type': 'text/event-stream' };
const frame = (c: unknown) => `data: ${JSON.stringify(c)}\n\n`;
const tokens = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i} `);

let servers: Loopback[] = [];
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  pipeline = undefined;
});

async function setup(handlers: Handler[], options: HedgeOptionsInput, capabilities: string[][] = []) {
  servers = await Promise.all(handlers.map((h) => startLoopback(h)));
  const clock = new VirtualClock();
  const outcomes: AttemptRecord[] = [];
  pipeline = createPipeline({
    clock,
    endpoints: servers.map((s, i) => ({ name: `u${i}`, provider: 'test', baseUrl: s.url })),
    models: { chat: servers.map((_, i) => ({ endpoint: `u${i}`, model: `m${i}`, capabilities: capabilities[i] })) },
    providers: [testProvider],
    plugins: [hedge(options)],
  });
  pipeline.events.on('attempt:end', (o) => outcomes.push(o));
  return { clock, outcomes, pipeline };
}

const hello = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const json = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion(text)));
};
const hang: Handler = () => undefined;
const headersOnly: Handler = (_req, res) => {
  res.writeHead(200, sseHead);
  res.flushHeaders();
};
const streamOf = (words: string[], finish = true): Handler => (_req, res) => {
  res.writeHead(200, sseHead);
  res.end(sseBody(textChunks(words, finish), finish));
};
async function drain(stream: AsyncIterable<StreamPart>) {
  const parts: StreamPart[] = [];
  for await (const p of stream) parts.push(p);
  return parts;
}
const textOf = (parts: StreamPart[]) => parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');

describe('hedged requests', () => {
  const hedgeAll = { tiers: { '*': { hedge: { delayMs: 500 } } } };

  it('starts the next candidate after the delay; the first answer wins and the loser is aborted', async () => {
    let primaryClosed = false;
    const { clock, outcomes, pipeline: p } = await setup(
      [
        (req) => {
          req.socket.on('close', () => (primaryClosed = true));
        },
        json('from the hedge'),
      ],
      hedgeAll,
    );
    const started = clock.now();
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 100 });
    expect(r.choices[0].message.content).toBe('from the hedge');
    expect(r.switchyard?.endpoint).toBe('u1');
    expect(clock.now() - started).toBeGreaterThanOrEqual(500);
    expect(clock.now() - started).toBeLessThan(1000);
    await new Promise((res) => setTimeout(res, 30));
    expect(primaryClosed).toBe(true);
    expect(outcomes.map((o) => [o.candidate.endpoint.name, o.outcome])).toEqual(
      expect.arrayContaining([
        ['u0', 'ignored'],
        ['u1', 'success'],
      ]),
    );
    expect(outcomes).toHaveLength(2);
  });

  it('does not hedge when the primary answers before the delay', async () => {
    const { clock, pipeline: p } = await setup([json('primary'), json('hedge')], hedgeAll);
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 10 });
    expect(r.choices[0].message.content).toBe('primary');
    expect(servers[1].requests).toHaveLength(0);
  });

  it('hedges a stream before its commit point', async () => {
    const { clock, pipeline: p } = await setup([headersOnly, streamOf(['quick', ' answer'])], hedgeAll);
    const stream = await runWithVirtualTime(clock, p.stream(hello), { stepMs: 100 });
    expect(stream.info.endpoint).toBe('u1');
    expect(textOf(await drain(stream))).toBe('quick answer');
  });

  it('spends the retry budget: no budget, no hedge', async () => {
    const { clock, pipeline: p } = await setup([hang, json('backup')], hedgeAll);
    provideService(p, SERVICE.retryBudget, { tryWithdraw: async () => false });
    const started = clock.now();
    const r = await runWithVirtualTime(clock, p.chat(hello), { stepMs: 1000 });
    expect(r.choices[0].message.content).toBe('backup');
    // The backup was only tried after the primary's 30 s first-byte limit, as a plain failover.
    expect(clock.now() - started).toBeGreaterThanOrEqual(30_000);
  });

  it('tiers without a hedge entry are not hedged', async () => {
    const { clock, pipeline: p } = await setup([json('primary'), json('hedge')], { tiers: { gold: { hedge: { delayMs: 1 } } } });
    const r = await runWithVirtualTime(clock, p.chat({ ...hello, switchyard: { tier: 'silver' } }), { stepMs: 10 });
    expect(r.choices[0].message.content).toBe('primary');
  });

  it('derives the delay from the observed p95 within bounds', () => {
    const tracker = new LatencySamples();
    const opts = { delayMs: 'p95' as const, minDelayMs: 100, maxDelayMs: 5000, fallbackDelayMs: 2000, minSamples: 20 };
    expect(hedgeDelay(opts, tracker, 'a/m')).toBe(2000);
    for (let i = 1; i <= 100; i++) tracker.add('a/m', i * 10);
    expect(hedgeDelay(opts, tracker, 'a/m')).toBe(950);
    for (let i = 0; i < 200; i++) tracker.add('b/m', 1);
    expect(hedgeDelay(opts, tracker, 'b/m')).toBe(100);
  });
});

describe('mid-stream continuation', () => {
  const continueAll = { tiers: { '*': { continuation: true } } };
  /** A stream that dies after 40 tokens without a finish. */
  const cutAfter40: Handler = (_req, res) => {
    res.writeHead(200, sseHead);
    res.end(textChunks(tokens(0, 40), false).map(frame).join(''));
  };

  it('a stream cut after 40 of 60 tokens is completed on a prefill-capable fallback', async () => {
    const { clock, pipeline: p } = await setup(
      [
        cutAfter40,
        streamOf(tokens(40, 60)),
      ],
      continueAll,
      [[], ['prefill']],
    );
    const parts = await runWithVirtualTime(clock, p.stream(hello).then(drain));
    expect(textOf(parts)).toBe(tokens(0, 60).join(''));
    expect(parts.some((x) => x.type === 'error')).toBe(false);
    expect(parts[parts.length - 1].type).toBe('finish');
    const sent = JSON.parse(servers[1].requests[0].body);
    expect(sent.messages.at(-1)).toEqual({ role: 'assistant', content: tokens(0, 40).join('') });
  });

  it('when the fallback rejects the prefill, the caller gets a clean error naming the cut', async () => {
    const { clock, pipeline: p } = await setup(
      [
        cutAfter40,
        (_req, res) => {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'This model does not support assistant message prefill.' } }));
        },
      ],
      continueAll,
      [[], ['prefill']],
    );
    const parts = await runWithVirtualTime(clock, p.stream(hello).then(drain));
    const last = parts[parts.length - 1];
    expect(last).toMatchObject({ type: 'error', error: { kind: 'stream-cut', endpoint: 'u0' } });
    expect(servers[1].requests).toHaveLength(1);
  });

  it('a 20-token-then-stall stream is continued after the idle limit', async () => {
    const { clock, pipeline: p } = await setup(
      [
        (_req, res) => {
          res.writeHead(200, sseHead);
          res.write(textChunks(tokens(0, 20), false).map(frame).join(''));
        },
        streamOf(tokens(20, 30)),
      ],
      continueAll,
      [[], ['prefill']],
    );
    const started = clock.now();
    const parts = await runWithVirtualTime(clock, p.stream(hello).then(drain), { stepMs: 250, realWaitMs: 2 });
    expect(textOf(parts)).toBe(tokens(0, 30).join(''));
    expect(clock.now() - started).toBeLessThan(32_000);
  });

  it('continues by default, with no hedge options, when the next candidate declares prefill', async () => {
    const { clock, pipeline: p } = await setup(
      [
        cutAfter40,
        streamOf(tokens(40, 60)),
      ],
      {},
      [[], ['prefill']],
    );
    const parts = await runWithVirtualTime(clock, p.stream(hello).then(drain));
    expect(textOf(parts)).toBe(tokens(0, 60).join(''));
    expect(parts.some((x) => x.type === 'error')).toBe(false);
  });

  it('a tier with continuation: false ends the stream with its failure', async () => {
    const { clock, pipeline: p } = await setup(
      [
        cutAfter40,
        streamOf(tokens(40, 60)),
      ],
      { tiers: { '*': { continuation: false } } },
      [[], ['prefill']],
    );
    const parts = await runWithVirtualTime(clock, p.stream(hello).then(drain));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'stream-cut' } });
    expect(servers[1].requests).toHaveLength(0);
  });

  it('without a prefill-capable candidate the stream ends with the original failure', async () => {
    const { clock, pipeline: p } = await setup(
      [
        (_req, res) => {
          res.writeHead(200, sseHead);
          res.end(textChunks(tokens(0, 5), false).map(frame).join(''));
        },
        streamOf(['never']),
      ],
      continueAll,
    );
    const parts = await runWithVirtualTime(clock, p.stream(hello).then(drain));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'error', error: { kind: 'stream-cut' } });
    expect(servers[1].requests).toHaveLength(0);
  });
});

describe('commit point at the end of the answer', () => {
  it('buffers the answer, so a cut mid-answer fails over invisibly', async () => {
    const { clock, pipeline: p } = await setup(
      [
        (_req, res) => {
          res.writeHead(200, sseHead);
          res.end(textChunks(['half', ' an'], false).map(frame).join(''));
        },
        streamOf(['whole', ' answer']),
      ],
      { tiers: { careful: { commit: 'end' } } },
    );
    const parts = await runWithVirtualTime(clock, p.stream({ ...hello, switchyard: { tier: 'careful' } }).then(drain));
    expect(textOf(parts)).toBe('whole answer');
    expect(parts.some((x) => x.type === 'error')).toBe(false);
  });
});
