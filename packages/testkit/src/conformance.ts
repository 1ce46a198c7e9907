/**
 * runProviderConformance(): the checks every Switchyard provider must pass, run from vitest.
 * The samples are served from a real loopback server and the provider runs through the real
 * core pipeline and undici transport, exactly as in production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipeline, isSwitchyardError, outcomeOf, runWithVirtualTime, VirtualClock, type ChatRequest, type Pipeline, type ProviderV1, type StreamPart, type SwitchyardError } from '@switchyard/core';
import { startSampleServer, type SampleServer } from './sample-server.js';
import { defaultCutStream, type ConformanceSamples, type ErrorSampleKind, type RequestMapping, type StreamSample } from './samples.js';

/** What each error class must become: the kind and whether a policy may retry it. */
const EXPECTED_ERRORS: Record<ErrorSampleKind, { kinds: string[]; retryable: boolean }> = {
  'rate-limit': { kinds: ['rate-limit'], retryable: true },
  server: { kinds: ['server'], retryable: true },
  overloaded: { kinds: ['overloaded', 'server'], retryable: true },
  auth: { kinds: ['auth'], retryable: false },
  payment: { kinds: ['payment'], retryable: false },
  'context-length': { kinds: ['context-length'], retryable: false },
  'content-filter': { kinds: ['content-filter'], retryable: false },
  'bad-request': { kinds: ['bad-request'], retryable: false },
  'not-found': { kinds: ['not-found'], retryable: false },
};

const KEY = 'sk-conformance-0123456789abcdefSECRET';

/** The request whose wire form `samples.request` describes: every role, a tool and limits. */
export const CONFORMANCE_REQUEST: ChatRequest = {
  model: 'conformance',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'What is the weather in Oslo?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_conformance_1', type: 'function', function: { name: 'lookup_weather', arguments: '{"city":"Oslo"}' } }] },
    { role: 'tool', tool_call_id: 'call_conformance_1', content: 'Sunny, 21 C' },
  ],
  tools: [{ type: 'function', function: { name: 'lookup_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
  max_tokens: 123,
  temperature: 0.25,
};

/** What each field of `RequestMapping.body` must hold on the wire. */
const EXPECTED_FIELDS: Record<keyof RequestMapping['body'], unknown> = {
  system: 'You are a terse assistant.',
  user: 'What is the weather in Oslo?',
  maxTokens: 123,
  temperature: 0.25,
  toolName: 'lookup_weather',
  toolResult: 'Sunny, 21 C',
};

/** Reads `a.b[0].c` from a parsed JSON body. */
export function valueAt(value: unknown, jsonPath: string): unknown {
  let current = value;
  for (const key of jsonPath.match(/[^.[\]]+/g) ?? []) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function expectKeyOnlyInHeaders(seen: { url: string; headers: Record<string, unknown> }, secret: string): void {
  let url = seen.url;
  try {
    url = decodeURIComponent(seen.url);
  } catch {
    // not percent-encoded text: check it as it is
  }
  expect(url, 'the API key must never be part of a URL (query string or path): URLs end up in logs and proxies').not.toContain(secret);
  expect(JSON.stringify(seen.headers), 'the API key must be sent in a header').toContain(secret);
}

export interface ConformanceOptions {
  /** The provider id to register the endpoint under (default: provider.id). */
  providerId?: string;
  /** Extra providers the pipeline needs (rare). */
  extraProviders?: ProviderV1[];
}

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function textOf(parts: StreamPart[]): string {
  return parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
}

/** The error a failed request reports for its (only) attempt. */
function attemptError(error: unknown): SwitchyardError {
  if (!isSwitchyardError(error)) throw error;
  return error.attempts?.[0] ?? error;
}

function expectNoSecret(error: SwitchyardError, secret: string): void {
  const texts = [error.message, JSON.stringify(error.toJSON()), ...(error.attempts ?? []).map((a) => a.message)];
  for (const text of texts) expect(text).not.toContain(secret);
}

export function runProviderConformance(provider: ProviderV1, samples: ConformanceSamples, options: ConformanceOptions = {}): void {
  const secret = samples.apiKey ?? KEY;
  const request: ChatRequest = { model: 'conformance', messages: [{ role: 'user', content: 'Say hello.' }] };
  const toolRequest: ChatRequest = {
    ...request,
    tools: [{ type: 'function', function: { name: samples.toolCall?.expected.name ?? 'tool', parameters: { type: 'object', properties: {} } } }],
  };

  describe(`provider conformance: ${provider.id}`, () => {
    let server: SampleServer;
    const pipelines: Pipeline[] = [];
    const make = (clock?: VirtualClock) => {
      const pipeline = createPipeline({
        clock,
        endpoints: [{ name: 'vendor', provider: options.providerId ?? provider.id, baseUrl: `${server.url}/v1`, apiKey: secret, ...samples.endpoint }],
        models: { conformance: [{ endpoint: 'vendor', model: samples.model }] },
        providers: [provider, ...(options.extraProviders ?? [])],
      });
      pipelines.push(pipeline);
      return pipeline;
    };

    /** A stream that must fail: before its first token the request rejects, after it the last part is the error. */
    const expectFailedStream = async (sample: StreamSample, kinds: readonly string[]) => {
      server.behave({ type: 'stream', sample });
      const outcome = await make()
        .stream(request)
        .then(collect)
        .then(
          (parts) => ({ parts }),
          (error: unknown) => ({ error }),
        );
      if ('parts' in outcome) {
        expect(outcome.parts.some((p) => p.type === 'finish'), 'a failed stream must not finish as a success').toBe(false);
        const last = outcome.parts.at(-1);
        expect(last?.type).toBe('error');
        expect(kinds).toContain((last as { error: SwitchyardError }).error.kind);
      } else {
        expect(kinds).toContain(attemptError(outcome.error).kind);
      }
    };

    beforeAll(async () => {
      server = await startSampleServer();
    });
    afterAll(async () => {
      await Promise.all(pipelines.map((p) => p.close()));
      await server.close();
    });

    it('declares the v1 specification and an id', () => {
      expect(provider.specificationVersion).toBe('v1');
      expect(typeof provider.id).toBe('string');
    });

    it('sends an authenticated POST with the deployment model, the key in a header only', async () => {
      server.behave({ type: 'json', sample: samples.text.response });
      await make().chat(request);
      const seen = server.requests.at(-1)!;
      expect(seen.method).toBe('POST');
      expectKeyOnlyInHeaders(seen, secret);
      expect(`${seen.url} ${seen.body}`).toContain(samples.model);
    });

    it('maps roles, tools and limits onto the wire request', async () => {
      const mapping = samples.request;
      server.behave({ type: 'json', sample: samples.text.response });
      await make().chat(CONFORMANCE_REQUEST);
      const seen = server.requests.at(-1)!;
      expect(new URL(seen.url, server.url).pathname, 'request path').toBe(`/v1${mapping.path}`.replace(/\?.*$/, ''));
      for (const [name, value] of Object.entries(mapping.headers ?? {})) expect(seen.headers[name], `header ${name}`).toBe(value);
      const body = JSON.parse(seen.body) as unknown;
      for (const [field, jsonPath] of Object.entries(mapping.body) as [keyof RequestMapping['body'], string][]) {
        expect(valueAt(body, jsonPath), `body.${jsonPath} must carry the ${field} (${JSON.stringify(EXPECTED_FIELDS[field])}); the body was ${seen.body}`).toEqual(EXPECTED_FIELDS[field]);
      }
      for (const [jsonPath, role] of Object.entries(mapping.roles ?? {})) expect(valueAt(body, jsonPath), `body.${jsonPath} must be the role "${role}"; the body was ${seen.body}`).toBe(role);
    });

    if (samples.streamError) {
      const { stream, kinds } = samples.streamError;
      it('turns an error event inside a 200 stream into an error, never a success', async () => {
        await expectFailedStream(stream, kinds);
      });
    }

    for (const [reason, sample] of Object.entries(samples.finishReasons ?? {})) {
      if (sample?.response) {
        const response = sample.response;
        it(`maps an answer that ended for "${reason}"`, async () => {
          server.behave({ type: 'json', sample: response });
          expect((await make().chat(request)).choices[0].finish_reason).toBe(reason);
        });
      }
      if (sample?.stream) {
        const stream = sample.stream;
        it(`maps a stream that ended for "${reason}"`, async () => {
          server.behave({ type: 'stream', sample: stream });
          const parts = await collect(await make().stream(request));
          expect(parts.find((p) => p.type === 'finish')).toMatchObject({ finishReason: reason });
        });
      }
    }

    it('maps a non-streaming text answer', async () => {
      server.behave({ type: 'json', sample: samples.text.response });
      const response = await make().chat(request);
      expect(response.object).toBe('chat.completion');
      expect(response.choices[0].message.content).toBe(samples.text.expectedText);
      expect(response.choices[0].finish_reason).toBe('stop');
      expect(response.usage?.prompt_tokens).toBeGreaterThan(0);
      expect(response.usage?.completion_tokens).toBeGreaterThan(0);
      expect(response.model).toBeTruthy();
    });

    it('maps a streamed text answer, with its finish reason and usage', async () => {
      server.behave({ type: 'stream', sample: samples.text.stream });
      const parts = await collect(await make().stream(request));
      expect(parts.some((p) => p.type === 'error')).toBe(false);
      expect(textOf(parts)).toBe(samples.text.expectedStreamText ?? samples.text.expectedText);
      const finish = parts.find((p) => p.type === 'finish');
      expect(finish).toMatchObject({ finishReason: 'stop' });
      const usage = [...parts].reverse().find((p) => p.type === 'usage' || (p.type === 'finish' && p.usage));
      expect(usage).toBeTruthy();
    });

    if (samples.toolCall) {
      const tool = samples.toolCall;
      it('maps a tool call', async () => {
        server.behave({ type: 'json', sample: tool.response });
        const response = await make().chat(toolRequest);
        const call = response.choices[0].message.tool_calls?.[0];
        expect(call?.function.name).toBe(tool.expected.name);
        expect(JSON.parse(call!.function.arguments)).toEqual(tool.expected.arguments);
        expect(call?.id).toBeTruthy();
        expect(response.choices[0].finish_reason).toBe('tool_calls');
      });
      if (tool.stream) {
        const stream = tool.stream;
        it('maps a streamed tool call', async () => {
          server.behave({ type: 'stream', sample: stream });
          const response = await (await make().stream(toolRequest)).collect();
          const call = response.choices[0].message.tool_calls?.[0];
          const expected = tool.expectedStream ?? tool.expected;
          expect(call?.function.name).toBe(expected.name);
          expect(JSON.parse(call!.function.arguments)).toEqual(expected.arguments);
          expect(response.choices[0].finish_reason).toBe('tool_calls');
        });
      }
    }

    for (const [kind, sample] of Object.entries(samples.errors) as [ErrorSampleKind, NonNullable<ConformanceSamples['errors'][ErrorSampleKind]>][]) {
      it(`maps a ${sample.status} ${kind} error to its kind and retryability`, async () => {
        server.behave({ type: 'json', sample });
        const error = await make().chat(request).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, 'the request must fail').toBeTruthy();
        const attempt = attemptError(error);
        const expected = EXPECTED_ERRORS[kind];
        expect(expected.kinds).toContain(attempt.kind);
        expect(attempt.retryable).toBe(expected.retryable);
        expect(attempt.status).toBe(sample.status);
        if (sample.retryAfterMs !== undefined) expect(attempt.retryAfterMs).toBeCloseTo(sample.retryAfterMs, -1);
        expect(outcomeOf(attempt)).not.toBe('success');
        expectNoSecret(error as SwitchyardError, secret);
      });
    }

    it('reports a reset before headers as a network failure', async () => {
      server.behave({ type: 'reset' });
      const error = await make().chat(request).catch((e: unknown) => e);
      expect(attemptError(error).kind).toBe('network');
      expectNoSecret(error as SwitchyardError, secret);
    });

    it('abandons a stream that never sends its first token (ttft-timeout)', async () => {
      server.behave({ type: 'headers-then-stall' });
      const clock = new VirtualClock();
      const error = await runWithVirtualTime(clock, make(clock).stream(request).catch((e: unknown) => e), { stepMs: 500 });
      expect(attemptError(error).kind).toBe('ttft-timeout');
    });

    it('never passes off a stream cut before its finish signal as a success', async () => {
      await expectFailedStream(samples.cutStream ?? defaultCutStream(samples.text.stream), ['stream-cut']);
    });

    it('never puts the API key in a URL: chat, stream and probe requests', async () => {
      server.behave({ type: 'stream', sample: samples.text.stream });
      await collect(await make().stream(request));
      for (const seen of server.requests) expectKeyOnlyInHeaders(seen, secret);
      if (provider.probe) {
        const probe = provider.probe(make().candidatesFor('conformance')[0]);
        expectKeyOnlyInHeaders({ url: probe.path, headers: probe.headers }, secret);
      }
    });

    it('honours an abort from the caller and closes the upstream request', async () => {
      server.behave({ type: 'stall' });
      const aborts = server.clientAborts;
      const controller = new AbortController();
      const pending = make().chat(request, { signal: controller.signal }).catch((e: unknown) => e);
      const before = server.requests.length;
      while (server.requests.length === before) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      const error = (await pending) as SwitchyardError;
      expect(error.kind).toBe('cancelled');
      for (let i = 0; i < 40 && server.clientAborts === aborts; i++) await new Promise((r) => setTimeout(r, 5));
      expect(server.clientAborts).toBeGreaterThan(aborts);
    });
  });
}
