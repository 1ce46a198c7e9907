/**
 * Issue 41: a pass-through stream is decoded only up to its commit point and where a decision
 * needs it (the finish, usage, errors); the rest goes to the client as the vendor wrote it and is
 * decoded from the kept text only when the answer is needed (a cut, a plugin that stores it).
 * Every dialect, through the real gateway, with a transport that hands the vendor's body over in
 * exactly the chunks written here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, definePlugin, SwitchyardError, type Pipeline, type ProviderV1, type StreamDecoder, type Transport, type TransportRequest } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiDialect, geminiProvider } from '@switchyard/provider-gemini';
import { openaiProvider } from '@switchyard/provider-openai';
import { DEFAULT_DIALECTS } from '../src/index.js';
import { GATEWAY_KEY, raw, startGateway, stopAll } from './support/harness.js';

afterEach(stopAll);

/** Content that spells every marker a byte scan looks for, as text (escaped inside JSON strings). */
const TRICKY = ' event: message_delta "usage":{"output_tokens":999} "finish_reason":"stop" response.completed "finishReason":"STOP" "usageMetadata" [DONE]\n\n';
const WORDS = ['The', ' quick', TRICKY, ' brown', ' fox.'];
const FULL_TEXT = WORDS.join('');
const USAGE = { input: 11, output: 7 };

interface Dialect {
  provider: ProviderV1;
  /** The vendor's stream, one string per body chunk: head (commit point), deltas, terminal events. */
  chunks(words: string[], finish: boolean): string[];
  /** The gateway path and body of a streamed request in this dialect. */
  request: { path: string; body: Record<string, unknown> };
}

const sse = (name: string | undefined, data: unknown) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

const DIALECTS: Record<string, Dialect> = {
  messages: {
    provider: anthropicProvider,
    chunks: (words, finish) => [
      sse('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } }) +
        sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        sse('ping', { type: 'ping' }) +
        sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: words[0] } }),
      ...words.slice(1).map((w) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } }) + sse('ping', { type: 'ping' })),
      ...(finish ? [sse('content_block_stop', { type: 'content_block_stop', index: 0 }) + sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: USAGE.output } }) + sse('message_stop', { type: 'message_stop' })] : []),
    ],
    request: { path: '/v1/messages', body: { model: 'm', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] } },
  },
  chat: {
    provider: openaiProvider,
    chunks: (words, finish) => {
      const chunk = (delta: object, finishReason: string | null, usage?: object) => sse(undefined, { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta, finish_reason: finishReason }], usage: usage ?? null });
      return [
        chunk({ role: 'assistant', content: words[0] }, null),
        ...words.slice(1).map((w) => chunk({ content: w }, null)),
        ...(finish ? [chunk({}, 'stop') + sse(undefined, { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [], usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output } }) + 'data: [DONE]\n\n'] : []),
      ];
    },
    request: { path: '/v1/chat/completions', body: { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] } },
  },
  responses: {
    provider: openaiProvider,
    chunks: (words, finish) => {
      let n = 0;
      const ev = (type: string, data: object) => sse(type, { type, sequence_number: n++, ...data });
      const response = (status: string, extra: object = {}) => ({ id: 'resp_1', object: 'response', created_at: 1, status, model: 'gpt-x', output: [], ...extra });
      const item = { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      return [
        ev('response.created', { response: response('in_progress') }) +
          ev('response.in_progress', { response: response('in_progress') }) +
          ev('response.output_item.added', { output_index: 0, item }) +
          ev('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }) +
          ev('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: words[0], logprobs: [] }),
        ...words.slice(1).map((w) => ev('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: w, logprobs: [] })),
        ...(finish
          ? [
              ev('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text: words.join(''), logprobs: [] }) +
                ev('response.output_item.done', { output_index: 0, item: { ...item, status: 'completed', content: [{ type: 'output_text', text: words.join(''), annotations: [] }] } }) +
                ev('response.completed', { response: response('completed', { output: [{ ...item, status: 'completed', content: [{ type: 'output_text', text: words.join(''), annotations: [] }] }], usage: { input_tokens: USAGE.input, output_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output } }) }),
            ]
          : []),
      ];
    },
    request: { path: '/v1/responses', body: { model: 'm', stream: true, input: 'hi' } },
  },
  gemini: {
    provider: geminiProvider,
    chunks: (words, finish) => {
      // CRLF-framed, as Google writes it.
      const chunk = (text: string, last: boolean) =>
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }], ...(last ? { usageMetadata: { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output } } : {}), modelVersion: 'gemini-x', responseId: 'r1' })}\r\n\r\n`;
      return words.map((w, i) => chunk(w, finish && i === words.length - 1));
    },
    request: { path: '/v1beta/models/m:streamGenerateContent?alt=sse', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
  },
};

/** A vendor's answer: the chunks, and how the body ends (a socket error after them, or a plain close). */
interface Scripted {
  chunks: string[];
  cut?: boolean;
}

/** A transport that answers each request with the next script, in exactly its chunks, and keeps the bodies it was sent. */
function scriptedTransport(scripts: Scripted[]): Transport & { sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  return {
    sent,
    async request(req) {
      sent.push(req);
      const script = scripts.shift();
      if (!script) throw new SwitchyardError('network', 'no script left');
      const encoder = new TextEncoder();
      return {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: (async function* () {
          for (const chunk of script.chunks) yield encoder.encode(chunk);
          if (script.cut) throw new SwitchyardError('network', 'other side closed');
        })(),
        discard() {},
      };
    },
  };
}

/** The provider with its decoders counted: how many events were decoded. */
function counted(provider: ProviderV1): { provider: ProviderV1; pushes: () => number } {
  let pushes = 0;
  const wrapped: ProviderV1 = Object.assign(Object.create(provider) as ProviderV1, {
    createStreamDecoder(target: Parameters<ProviderV1['createStreamDecoder']>[0], request: Parameters<ProviderV1['createStreamDecoder']>[1]): StreamDecoder {
      const decoder = provider.createStreamDecoder(target, request);
      const push = decoder.push.bind(decoder);
      decoder.push = (event) => {
        pushes++;
        return push(event);
      };
      return decoder;
    },
  });
  return { provider: wrapped, pushes: () => pushes };
}

interface Ended {
  ok: boolean;
  text: string | null | undefined;
  finish: string | null | undefined;
  usage: unknown;
  error?: string;
}

async function gatewayFor(name: string, scripts: Scripted[], options: { fallback?: boolean; maxBytes?: number; keepAnswer?: boolean } = {}) {
  const dialect = DIALECTS[name]!;
  const transport = scriptedTransport(scripts);
  const { provider, pushes } = counted(dialect.provider);
  const endpoints = [{ name: 'first', provider: provider.id, baseUrl: 'http://vendor.invalid/v1', apiKey: 'sk-vendor-lazy-0123456789' }];
  const deployments: { endpoint: string; model: string; capabilities?: string[] }[] = [{ endpoint: 'first', model: 'upstream-a' }];
  if (options.fallback) {
    endpoints.push({ name: 'second', provider: provider.id, baseUrl: 'http://vendor2.invalid/v1', apiKey: 'sk-vendor-lazy-9876543210' });
    deployments.push({ endpoint: 'second', model: 'upstream-b', capabilities: ['prefill'] });
  }
  const wantsAnswer = definePlugin<void>({
    name: 'test:wants-answer',
    version: '0.0.0',
    core: '^0.1.0',
    apply(pipeline) {
      pipeline.hooks.classify.tap('test:wants-answer', (classification) => Object.assign(classification, { keepAnswer: true }));
    },
  });
  const pipeline: Pipeline = createPipeline({
    endpoints,
    models: { m: deployments },
    providers: [provider],
    plugins: options.keepAnswer ? [wantsAnswer()] : [],
    transport,
    ...(options.maxBytes ? { continuation: { maxBytes: options.maxBytes } } : {}),
  });
  const ended: Ended[] = [];
  pipeline.events.on('request:end', (e) => ended.push({ ok: e.ok, text: e.response?.choices[0]?.message.content, finish: e.response?.choices[0]?.finish_reason, usage: e.response?.usage, error: e.error?.kind }));
  const { origin } = await startGateway(pipeline, { dialects: [...DEFAULT_DIALECTS, geminiDialect] });
  const call = () => raw(origin, dialect.request.path, { body: JSON.stringify(dialect.request.body), headers: { 'x-goog-api-key': GATEWAY_KEY, 'x-api-key': GATEWAY_KEY } });
  return { call, ended, pushes, transport };
}

/**
 * The head's events (up to the first content event) and the last one or two: never a delta after
 * the commit point, nor an event of the head that yields no part (`partlessIn`: Messages' `ping`,
 * the Responses API's `in_progress`, `content_part.added` and an added item that is no function call).
 */
const EVENTS_DECODED_AT_MOST = { messages: 5, chat: 3, responses: 3, gemini: 2 } as const;

/**
 * The vendor's body in `chunks` reaches the client with every one of `forwarded` as the vendor
 * wrote it, billed exactly, and only the head and the last events decoded.
 */
async function expectRelayedLazily(name: string, chunks: string[], forwarded: string[]): Promise<void> {
  const { call, ended, pushes } = await gatewayFor(name, [{ chunks }]);
  const res = await call();
  expect(res.status).toBe(200);
  await expect.poll(() => ended.length).toBe(1);
  expect(ended[0]).toMatchObject({ ok: true, finish: 'stop', usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
  for (const chunk of forwarded) expect(res.text.replace(/\r\n/g, '\n')).toContain(chunk.replace(/\r\n/g, '\n'));
  expect(pushes()).toBeLessThanOrEqual(EVENTS_DECODED_AT_MOST[name as keyof typeof EVENTS_DECODED_AT_MOST]);
}

describe.each(Object.keys(DIALECTS))('a %s pass-through after its commit point', (name) => {
  it('forwards the vendor text unread, yet finds the finish and bills the exact usage; text spelling the markers changes neither', async () => {
    const vendorChunks = DIALECTS[name]!.chunks(WORDS, true);
    const { call, ended, pushes } = await gatewayFor(name, [{ chunks: vendorChunks }]);
    const res = await call();
    expect(res.status).toBe(200);
    // Every delta reached the client as the vendor wrote it, the tricky one and those after it.
    for (const chunk of vendorChunks.slice(1, -1)) expect(res.text.replace(/\r\n/g, '\n')).toContain(chunk.replace(/\r\n/g, '\n'));
    await expect.poll(() => ended.length).toBe(1);
    expect(ended[0]).toMatchObject({ ok: true, finish: 'stop', usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
    // Decoded: the head up to the first content event, and the last one or two; never the deltas after the commit point.
    expect(pushes()).toBeLessThanOrEqual(EVENTS_DECODED_AT_MOST[name as keyof typeof EVENTS_DECODED_AT_MOST]);
  });

  it('the chunk that holds the commit point is read lazily after it: a one-chunk answer reaches the client whole, billed exactly, its deltas not decoded', async () => {
    const whole = DIALECTS[name]!.chunks(WORDS, true).join('');
    const { call, ended, pushes } = await gatewayFor(name, [{ chunks: [whole] }]);
    const res = await call();
    expect(res.status).toBe(200);
    await expect.poll(() => ended.length).toBe(1);
    expect(ended[0]).toMatchObject({ ok: true, finish: 'stop', usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
    for (const word of WORDS) expect(res.text).toContain(JSON.stringify(word).slice(1, -1));
    // Decoded on the way: the head up to the first content event, and the last one or two.
    expect(pushes()).toBeLessThanOrEqual(EVENTS_DECODED_AT_MOST[name as keyof typeof EVENTS_DECODED_AT_MOST]);
  });

  it('chunks that end partway into an event (the commit chunk too) reach the client whole and billed exactly', async () => {
    const [head, ...rest] = DIALECTS[name]!.chunks(WORDS, true);
    const whole = [head!, ...rest].join('');
    // The commit chunk ends seven characters into the next event; the rest comes in 37-character chunks.
    const cuts = [head!.length + 7];
    for (let at = cuts[0]! + 37; at < whole.length; at += 37) cuts.push(at);
    await expectRelayedLazily(name, [0, ...cuts].map((from, i) => whole.slice(from, cuts[i] ?? whole.length)), rest.slice(0, -1));
  });

  it('after the chunk that holds the commit point, the rest is read lazily even when it comes in one chunk', async () => {
    const [head, ...rest] = DIALECTS[name]!.chunks(WORDS, true);
    await expectRelayedLazily(name, [head!, rest.join('')], rest.slice(0, -1));
  });

  it('a stream with no finish signal (its text spelling one) is still a cut, ending with the error event of the dialect', async () => {
    const { call, ended } = await gatewayFor(name, [{ chunks: DIALECTS[name]!.chunks(WORDS, false) }]);
    const res = await call();
    expect(res.status).toBe(200);
    await expect.poll(() => ended.length).toBe(1);
    expect(ended[0]).toMatchObject({ ok: false, error: 'stream-cut' });
    expect(res.text).not.toMatch(/data: \[DONE\]\s*$/);
    // A Responses client's closing snapshot is written by the gateway: it holds the text forwarded undecoded too.
    if (name === 'responses') expect(res.text.slice(res.text.lastIndexOf('event: response.failed'))).toContain(JSON.stringify(FULL_TEXT).slice(1, -1));
  });

  it('a cut after the commit point continues with the full text so far', async () => {
    const first = DIALECTS[name]!.chunks(WORDS, false);
    const rest = DIALECTS[name]!.chunks([' And more.'], true);
    const { call, ended, transport } = await gatewayFor(name, [{ chunks: first, cut: true }, { chunks: rest }], { fallback: true });
    const res = await call();
    expect(res.status).toBe(200);
    await expect.poll(() => ended.length).toBe(1);
    expect(transport.sent).toHaveLength(2);
    // The continuation carries every word the client received, the ones forwarded unread included.
    expect(transport.sent[1]!.body).toContain(JSON.stringify(FULL_TEXT).slice(1, -1));
    expect(ended[0]).toMatchObject({ ok: true });
    expect(res.text).toContain('And more.');
  });

  it('an event cut short after the commit point is decoded, not forwarded: the malformed chunk never reaches the client, the rest does', async () => {
    const words = DIALECTS[name]!.chunks(WORDS, true);
    const eol = name === 'gemini' ? '\r\n' : '\n';
    // What failoverbench S10 sends: a chunk whose JSON stops half-way.
    const broken = `${name === 'messages' ? `event: content_block_delta${eol}` : name === 'responses' ? `event: response.output_text.delta${eol}` : ''}data: {"id": "broken", "delta": {"content": ${eol}${eol}`;
    const { call, ended } = await gatewayFor(name, [{ chunks: [...words.slice(0, 2), broken, ...words.slice(2)] }]);
    const res = await call();
    expect(res.status).toBe(200);
    await expect.poll(() => ended.length).toBe(1);
    // Decoded, it is what it was before lazy reading: a malformed event, left out; the answer goes on around it.
    expect(res.text).not.toContain('"broken"');
    expect(res.text).toContain(JSON.stringify(' fox.'));
    expect(ended[0]).toMatchObject({ ok: true, finish: 'stop', usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
  });

  it('past continuation.maxBytes a cut ends with the error event, and no continuation is tried', async () => {
    const first = DIALECTS[name]!.chunks(WORDS, false);
    const { call, ended, transport } = await gatewayFor(name, [{ chunks: first, cut: true }, { chunks: DIALECTS[name]!.chunks(['x'], true) }], { fallback: true, maxBytes: first[0]!.length + 10 });
    const res = await call();
    expect(res.status).toBe(200);
    await expect.poll(() => ended.length).toBe(1);
    expect(ended[0]).toMatchObject({ ok: false, error: 'network' });
    expect(transport.sent).toHaveLength(1);
    expect(res.text).toMatch(/error|failed/);
  });

  it('a plugin that asked for the whole answer gets it decoded once, at the end', async () => {
    const without = await gatewayFor(name, [{ chunks: DIALECTS[name]!.chunks(WORDS, true) }]);
    await without.call();
    await expect.poll(() => without.ended.length).toBe(1);
    expect(without.ended[0]!.text).not.toBe(FULL_TEXT);

    const asked = await gatewayFor(name, [{ chunks: DIALECTS[name]!.chunks(WORDS, true) }], { keepAnswer: true });
    await asked.call();
    await expect.poll(() => asked.ended.length).toBe(1);
    expect(asked.ended[0]).toMatchObject({ ok: true, finish: 'stop', usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output } });
  });
});
