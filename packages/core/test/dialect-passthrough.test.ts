/**
 * The core's two seams for ingress dialects: candidates that cannot express a request are
 * skipped before any attempt (a 400 naming the field when none is left), and a vendor's stream
 * events travel with their parts when the request came in the vendor's own dialect.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, defineProvider, SwitchyardError, type ChatRequest, type ProviderV1, type StreamPart } from '../src/index.js';
import { setRequestOrigin, UNEXPRESSIBLE_CODE, wireTextOf } from '../src/entry-wire.js';
import { startLoopback, type Loopback } from './support/loopback.js';
import { testProvider } from './support/test-provider.js';

const DIALECT = 'test.native';
const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A provider that speaks DIALECT, refuses `file` parts and streams named events. */
const nativeProvider: ProviderV1 = defineProvider({
  ...testProvider,
  id: 'native',
  speaks: (format) => format === DIALECT,
  unsupported(request) {
    const index = request.messages.findIndex((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'file'));
    return index < 0 ? undefined : { path: `messages[${index}].content`, reason: 'a file (native has no file input)' };
  },
  createStreamDecoder() {
    const decoder = testProvider.createStreamDecoder(undefined as never, undefined as never);
    // An event it would have to normalise (`odd`) is not forwardable: its parts get encoded.
    return { push: (event) => decoder.push(event), end: () => decoder.end(), wireFormat: DIALECT, forwardable: (event) => !(event.json as { odd?: boolean }).odd };
  },
});

async function vendor(body: string, contentType = 'text/event-stream'): Promise<Loopback> {
  const server = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  });
  servers.push(server);
  return server;
}

function pipelineOf(upstreams: { name: string; provider: string; server: Loopback }[]) {
  return createPipeline({
    endpoints: upstreams.map((u) => ({ name: u.name, provider: u.provider, baseUrl: u.server.url })),
    models: { chat: upstreams.map((u) => ({ endpoint: u.name, model: `${u.name}-model` })) },
    providers: [testProvider, nativeProvider],
  });
}

const completion = JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] });

describe('candidates that cannot express a request', () => {
  it('are skipped before any attempt; the next one answers', async () => {
    const refusing = await vendor(completion, 'application/json');
    const taking = await vendor(completion, 'application/json');
    const pipeline = pipelineOf([{ name: 'first', provider: 'native', server: refusing }, { name: 'second', provider: 'test', server: taking }]);
    const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA' } }] }] };
    const answer = await pipeline.chat(request);
    expect(answer.switchyard.endpoint).toBe('second');
    expect(refusing.requests).toHaveLength(0);
    await pipeline.close();
  });

  it('fail with a 400 naming the field and every target when none can take it, before any vendor call', async () => {
    const server = await vendor(completion, 'application/json');
    const pipeline = pipelineOf([{ name: 'only', provider: 'native', server }]);
    const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'x' }, { role: 'user', content: [{ type: 'file', file: {} }] }] };
    const error = await pipeline.chat(request).catch((e: SwitchyardError) => e);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error).toMatchObject({ kind: 'invalid-request', code: UNEXPRESSIBLE_CODE, status: 400, path: 'messages[1].content' });
    expect((error as SwitchyardError).message).toContain('only/only-model');
    expect(server.requests).toHaveLength(0);
    await pipeline.close();
  });

  it('skip providers that do not speak the dialect of a part only that dialect carries', async () => {
    const plain = await vendor(completion, 'application/json');
    const native = await vendor(completion, 'application/json');
    const pipeline = pipelineOf([{ name: 'plain', provider: 'test', server: plain }, { name: 'native', provider: 'native', server: native }]);
    const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'read this' }] };
    setRequestOrigin(request, { format: DIALECT, body: {}, untranslatable: [{ path: 'messages[0].content[1]', what: 'a search result block' }] });
    const answer = await pipeline.chat(request);
    expect(answer.switchyard.endpoint).toBe('native');
    expect(plain.requests).toHaveLength(0);

    const onlyPlain = pipelineOf([{ name: 'plain', provider: 'test', server: plain }]);
    const again: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'read this' }] };
    setRequestOrigin(again, { format: DIALECT, body: {}, untranslatable: [{ path: 'messages[0].content[1]', what: 'a search result block' }] });
    await expect(onlyPlain.chat(again)).rejects.toMatchObject({ status: 400, path: 'messages[0].content[1]', message: expect.stringContaining('a search result block') });
    expect(plain.requests).toHaveLength(0);
    await Promise.all([pipeline.close(), onlyPlain.close()]);
  });
});

describe('stream events of the client dialect', () => {
  const events = [
    'event: start\ndata: {"id":"c1","model":"m"}\n\n',
    'event: ping\ndata: {}\n\n',
    'event: delta\ndata: {"choices":[{"delta":{"content":"Hel"}}]}\n\n',
    'event: delta\ndata: {"id":"c1","choices":[{"delta":{"content":"lo"}}]}\n\n',
    'event: odd\ndata: {"choices":[{"delta":{"content":"!"}}],"odd":true}\n\n',
    'event: stop\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n',
    'event: closing\ndata: {}\n\n',
  ];

  async function collect(origin: boolean): Promise<{ parts: StreamPart[]; texts: (string | undefined)[] }> {
    const server = await vendor(events.join(''));
    const pipeline = pipelineOf([{ name: 'native', provider: 'native', server }]);
    const request: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };
    if (origin) setRequestOrigin(request, { format: DIALECT, body: { model: 'chat' } });
    const parts: StreamPart[] = [];
    for await (const part of await pipeline.stream(request)) parts.push(part);
    await pipeline.close();
    return { parts, texts: parts.map((p) => wireTextOf(p)) };
  }

  it('travel with the first part each produced, part-less events with the next part, none after the last', async () => {
    const { parts, texts } = await collect(true);
    expect(parts.map((p) => p.type)).toEqual(['response-metadata', 'text-delta', 'response-metadata', 'text-delta', 'text-delta', 'finish']);
    // The third event made two parts: the second is covered by the first's text (''); the
    // fourth is not forwardable, so its part has no text and must be encoded.
    expect(texts).toEqual([events[0], events[1] + events[2], events[3], '', undefined, events[5]]);
  });

  it('are not kept for a request that came in another dialect', async () => {
    const { texts } = await collect(false);
    expect(texts.every((t) => t === undefined)).toBe(true);
  });
});
