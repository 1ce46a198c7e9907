import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { delay, http, HttpResponse, type RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { request, type Dispatcher } from 'undici';
import { createPipeline } from '@switchyard/core';
import { createMswDispatcher, vendorFaults, type FaultHandler } from '../src/index.js';
import { testProvider } from '../../core/test/support/test-provider.js';

const BASE = 'http://vendor.test/v1';
const encoder = new TextEncoder();

/** A stream that sends `first`, then waits for `open()` before sending `rest` and closing. */
function gatedStream(first: string, rest: string[]) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let cancelled: unknown;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(first));
      await gate;
      for (const part of rest) controller.enqueue(encoder.encode(part));
      controller.close();
    },
    cancel(reason) {
      cancelled = reason ?? 'cancelled';
    },
  });
  return { stream, open, cancelled: () => cancelled };
}

const sse = (text: string) => `data: ${JSON.stringify({ id: 'c1', model: 'm', choices: [{ delta: { content: text }, finish_reason: null }] })}\n\n`;
const finishSse = `data: ${JSON.stringify({ id: 'c1', model: 'm', choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

const gates: ReturnType<typeof gatedStream>[] = [];
const handlers: RequestHandler[] = [
  http.post(`${BASE}/json`, async ({ request }) => {
    const body = (await request.json()) as { n: number };
    return HttpResponse.json({ echo: body.n, auth: request.headers.get('authorization') }, { status: 201, headers: { 'x-request-id': 'req_1', 'retry-after': '3' } });
  }),
  http.post(`${BASE}/stream`, () => {
    const gated = gatedStream(sse('Hel'), [sse('lo'), finishSse]);
    gates.push(gated);
    return new HttpResponse(gated.stream, { headers: { 'content-type': 'text/event-stream' } });
  }),
  http.post(`${BASE}/reset`, () => HttpResponse.error()),
  http.post(`${BASE}/throws`, () => {
    throw new Error('resolver bug');
  }),
  http.post(`${BASE}/forever`, async () => {
    await delay('infinite');
    return HttpResponse.text('never');
  }),
];

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  gates.splice(0);
  server.resetHandlers();
});
afterAll(() => server.close());

const dispatcher = createMswDispatcher(handlers);
const post = (path: string, body: unknown, extra: Partial<Dispatcher.RequestOptions> = {}) =>
  request(`${BASE}${path}`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify(body), ...extra });
const fetchPost = (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify(body), ...init });

/** Reads the first chunk, lets the handler continue, then reads the rest. */
async function readGated(body: AsyncIterable<Uint8Array>): Promise<{ first: string; all: string }> {
  const decoder = new TextDecoder();
  let first = '';
  let all = '';
  for await (const chunk of body) {
    const text = decoder.decode(chunk, { stream: true });
    if (!first) {
      first = text;
      // The handler has not produced more yet: the first chunk arrived on its own.
      gates.at(-1)!.open();
    }
    all += text;
  }
  return { first, all };
}

describe('msw → undici bridge: the same handler through both paths', () => {
  it('gives identical status, headers and JSON body', async () => {
    const viaFetch = await fetchPost('/json', { n: 7 });
    const viaUndici = await post('/json', { n: 7 });
    expect(viaUndici.statusCode).toBe(viaFetch.status);
    expect(viaUndici.statusCode).toBe(201);
    for (const name of ['content-type', 'x-request-id', 'retry-after']) expect(viaUndici.headers[name]).toBe(viaFetch.headers.get(name));
    const fetched = await viaFetch.json();
    expect(await viaUndici.body.json()).toEqual(fetched);
    expect(fetched).toEqual({ echo: 7, auth: 'Bearer k' });
  });

  it('streams chunk by chunk on both paths with identical text', async () => {
    const viaFetch = await fetchPost('/stream', {});
    const fromFetch = await readGated(viaFetch.body as unknown as AsyncIterable<Uint8Array>);
    const viaUndici = await post('/stream', {});
    const fromUndici = await readGated(viaUndici.body);
    expect(fromUndici).toEqual(fromFetch);
    expect(fromUndici.first).toBe(sse('Hel'));
    expect(fromUndici.all).toBe(sse('Hel') + sse('lo') + finishSse);
    expect(viaUndici.headers['content-type']).toBe(viaFetch.headers.get('content-type'));
  });

  it('turns HttpResponse.error() into a network error on both paths', async () => {
    await expect(fetchPost('/reset', {})).rejects.toThrow(TypeError);
    await expect(post('/reset', {})).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });

  it('answers a throwing resolver with msw’s 500 on both paths', async () => {
    const viaFetch = await fetchPost('/throws', {});
    const viaUndici = await post('/throws', {});
    expect(viaUndici.statusCode).toBe(viaFetch.status);
    const a = (await viaFetch.json()) as { message: string };
    const b = (await viaUndici.body.json()) as { message: string };
    expect(b.message).toBe(a.message);
    expect(b.message).toBe('resolver bug');
  });
});

describe('vendor fault handlers give the same answers through both paths', () => {
  const anthropic = vendorFaults('anthropic', { baseUrl: 'http://anthropic.test/v1' });
  const body = (stream: boolean) => JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream });
  const both = async (handler: RequestHandler, stream: boolean) => {
    server.use(handler);
    const url = 'http://anthropic.test/v1/messages';
    const viaFetch = await fetch(url, { method: 'POST', body: body(stream) });
    const fetched = await viaFetch.text();
    // Ids count answers; start the second path from the same count.
    (handler as FaultHandler).fault.reset();
    const viaUndici = await request(url, { method: 'POST', body: body(stream), dispatcher: createMswDispatcher([handler]) });
    return {
      fetch: { status: viaFetch.status, type: viaFetch.headers.get('content-type'), text: fetched },
      undici: { status: viaUndici.statusCode, type: viaUndici.headers['content-type'], text: await viaUndici.body.text() },
    };
  };

  it.each([
    ['healthy stream', () => anthropic.ok({ tokens: 12 }), true],
    ['529 overloaded', () => anthropic.overloaded(), false],
    ['error event inside a 200 stream', () => anthropic.streamError(), true],
    ['refusal', () => anthropic.contentFilter(), true],
  ] as const)('%s', async (_name, make, stream) => {
    const r = await both(make(), stream);
    expect(r.undici).toEqual(r.fetch);
    expect(r.undici.text.length).toBeGreaterThan(0);
  });
});

describe('msw → undici bridge: aborts and edge cases', () => {
  it('aborts a request held by delay("infinite")', async () => {
    const controller = new AbortController();
    const pending = post('/forever', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 10);
    const started = Date.now();
    await expect(pending).rejects.toThrow('caller gave up');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('aborts mid-stream and cancels the handler’s stream', async () => {
    const controller = new AbortController();
    const res = await post('/stream', {}, { signal: controller.signal });
    const iterator = res.body[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe(sse('Hel'));
    controller.abort(new Error('stop reading'));
    await expect(iterator.next()).rejects.toThrow('stop reading');
    await expect.poll(() => gates.at(-1)!.cancelled(), { timeout: 5_000, interval: 2 }).toBeDefined();
  });

  it('delivers every chunk sent before a mid-body failure, then a socket error', async () => {
    const cut = createMswDispatcher([
      http.get(`${BASE}/cut`, () => {
        const parts = ['one,', 'two,'];
        const body = new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              const next = parts.shift();
              if (next) controller.enqueue(encoder.encode(next));
              else controller.error(new Error('peer died'));
            },
          },
          { highWaterMark: 0 },
        );
        return new HttpResponse(body);
      }),
    ]);
    const res = await request(`${BASE}/cut`, { dispatcher: cut });
    let received = '';
    const failure = await (async () => {
      for await (const chunk of res.body) received += Buffer.from(chunk).toString();
    })().catch((e: unknown) => e);
    expect(received).toBe('one,two,');
    expect(failure).toMatchObject({ code: 'UND_ERR_SOCKET' });
  });

  it('fails an unhandled request with a coded error', async () => {
    await expect(post('/nothing-here', {})).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_MSW_UNHANDLED' });
  });

  it('honours backpressure: an unread body does not drain the handler', async () => {
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024).fill(97);
    const big = createMswDispatcher([
      http.get(`${BASE}/big`, () => {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            if (pulled > 200) controller.close();
            else controller.enqueue(chunk);
          },
        }, { highWaterMark: 0 });
        return new HttpResponse(body);
      }),
    ]);
    const res = await request(`${BASE}/big`, { dispatcher: big });
    await expect.poll(() => pulled, { timeout: 5_000, interval: 2 }).toBeGreaterThan(0);
    // Event-loop turns in which an unbounded pump would have read all 200 chunks.
    for (let turn = 0; turn < 20; turn++) await new Promise((r) => setImmediate(r));
    expect(pulled).toBeLessThan(20);
    let bytes = 0;
    for await (const c of res.body) bytes += c.byteLength;
    expect(bytes).toBe(200 * chunk.byteLength);
  });

  it('drives controller-API handlers (undici 7 interceptors) with pause/resume', async () => {
    const events: string[] = [];
    let data = '';
    await new Promise<void>((resolve, reject) => {
      dispatcher.dispatch(
        { origin: 'http://vendor.test', path: '/v1/stream', method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } },
        {
          onRequestStart: () => events.push('start'),
          onResponseStart: (controller, status, headers) => {
            events.push(`status ${status} ${headers['content-type']}`);
            controller.pause();
            setTimeout(() => {
              events.push('resume');
              controller.resume();
            }, 5);
          },
          onResponseData: (_c, chunk) => {
            if (!data) gates.at(-1)!.open();
            events.push('data');
            data += chunk.toString();
          },
          onResponseEnd: () => resolve(),
          onResponseError: (_c, error) => reject(error),
        },
      );
    });
    expect(events.slice(0, 3)).toEqual(['start', 'status 200 text/event-stream', 'resume']);
    expect(data).toBe(sse('Hel') + sse('lo') + finishSse);
  });

  it('lets a controller-API handler abort mid-stream', async () => {
    const failure = await new Promise<Error>((resolve) => {
      dispatcher.dispatch(
        { origin: 'http://vendor.test', path: '/v1/stream', method: 'POST', body: '{}' },
        {
          onResponseData: (controller) => controller.abort(new Error('interceptor aborted')),
          onResponseEnd: () => resolve(new Error('completed instead of aborting')),
          onResponseError: (_c, error) => resolve(error),
        },
      );
    });
    expect(failure.message).toBe('interceptor aborted');
    await expect.poll(() => gates.at(-1)!.cancelled(), { timeout: 5_000, interval: 2 }).toBeDefined();
  });

  it('rejects new requests after close()', async () => {
    const closing = createMswDispatcher(handlers);
    await closing.close();
    await expect(request(`${BASE}/json`, { method: 'POST', body: '{}', dispatcher: closing })).rejects.toMatchObject({ code: 'UND_ERR_CLOSED' });
  });
});

describe('msw → undici bridge under the production pipeline', () => {
  it('serves chat and stream through createPipeline({ dispatcher })', async () => {
    const vendor = [
      http.post(`${BASE}/chat/completions`, async ({ request: req }) => {
        const body = (await req.json()) as { stream?: boolean };
        if (!body.stream) return HttpResponse.json({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] });
        return new HttpResponse(sse('Hel') + sse('lo') + finishSse, { headers: { 'content-type': 'text/event-stream' } });
      }),
    ];
    const pipeline = createPipeline({
      endpoints: [{ name: 'a', provider: 'test', baseUrl: BASE }],
      models: { chat: [{ endpoint: 'a', model: 'm' }] },
      providers: [testProvider],
      dispatcher: createMswDispatcher(vendor),
    });
    const r = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices[0].message.content).toBe('hi');
    const s = await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect((await s.collect()).choices[0].message.content).toBe('Hello');
    await pipeline.close();
  });

  it('reports HttpResponse.error() as a network failure and fails over', async () => {
    const dead = createMswDispatcher([
      http.post('http://a.test/v1/chat/completions', () => HttpResponse.error()),
      http.post('http://b.test/v1/chat/completions', () => HttpResponse.json({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'from b' }, finish_reason: 'stop' }] })),
    ]);
    const pipeline = createPipeline({
      endpoints: [
        { name: 'a', provider: 'test', baseUrl: 'http://a.test/v1' },
        { name: 'b', provider: 'test', baseUrl: 'http://b.test/v1' },
      ],
      models: { chat: [{ endpoint: 'a', model: 'm' }, { endpoint: 'b', model: 'm' }] },
      providers: [testProvider],
      dispatcher: dead,
    });
    const r = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices[0].message.content).toBe('from b');
    expect(r.switchyard).toMatchObject({ endpoint: 'b', attempts: 2 });
    await pipeline.close();
  });
});
