/**
 * runProviderConformance(): the checks every Switchyard provider must pass, run from vitest.
 * The samples are served from a real loopback server and the provider runs through the real
 * core pipeline and undici transport, exactly as in production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipeline, isSwitchyardError, outcomeOf, runWithVirtualTime, VirtualClock, type ChatRequest, type Pipeline, type ProviderV1, type StreamPart, type SwitchyardError } from '@switchyard/core';
import { startSampleServer, type SampleServer } from './sample-server.js';
import { defaultCutStream, type ConformanceSamples, type ErrorSampleKind } from './samples.js';

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

    it('sends an authenticated POST with the deployment model', async () => {
      server.behave({ type: 'json', sample: samples.text.response });
      await make().chat(request);
      const seen = server.requests.at(-1)!;
      expect(seen.method).toBe('POST');
      const headerText = JSON.stringify(seen.headers);
      expect(headerText.includes(secret) || seen.url.includes(secret)).toBe(true);
      expect(seen.url.includes(`key=${secret}`)).toBe(false);
      expect(`${seen.url} ${seen.body}`).toContain(samples.model);
    });

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
      server.behave({ type: 'stream', sample: samples.cutStream ?? defaultCutStream(samples.text.stream) });
      const outcome = await make()
        .stream(request)
        .then(collect)
        .then(
          (parts) => ({ parts }),
          (error: unknown) => ({ error }),
        );
      if ('parts' in outcome) {
        expect(outcome.parts.some((p) => p.type === 'finish')).toBe(false);
        expect(outcome.parts.at(-1)).toMatchObject({ type: 'error', error: { kind: 'stream-cut' } });
      } else {
        expect(attemptError(outcome.error).kind).toBe('stream-cut');
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
