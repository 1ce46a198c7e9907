/**
 * Claude on Bedrock through the real pipeline and undici transport against the loopback fake
 * Bedrock, which verifies each SigV4 signature with its own implementation.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPipeline, outcomeOf, type Pipeline } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, toWireRequest, wireBodyOf, wireTextOf } from '@switchyard/core/wire';
import { createBedrockProvider, describeCredentialSource, type BedrockProviderOptions } from '../src/index.js';
import { claudeCodeBody, claudeCodeEvents, claudeCodeRequest, collect, failureOf } from './support/claude-code-shape.js';
import { startFakeBedrock, type FakeBedrock } from './support/fake-bedrock.js';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const KEY = { accessKeyId: 'AKIDFAKEBEDROCK01', secretAccessKey: 'fake/secret/0123456789abcdefSECRET' };

let fake: FakeBedrock;
let pipeline: Pipeline | undefined;
beforeEach(async () => {
  fake = await startFakeBedrock({ keys: { [KEY.accessKeyId]: { secretAccessKey: KEY.secretAccessKey } }, apiKeys: ['ABSKbedrock-api-key-0123456789SECRET'] });
});
afterEach(async () => {
  await pipeline?.close();
  pipeline = undefined;
  await fake.close();
});

function bedrockPipeline(endpoint: Record<string, unknown> = {}, options: BedrockProviderOptions = { source: () => async () => ({ ...KEY }) }): Pipeline {
  pipeline = createPipeline({
    endpoints: [{ name: 'bedrock-us', provider: 'bedrock', region: 'us-east-1', baseUrl: fake.url, ...endpoint }],
    models: { claude: [{ endpoint: 'bedrock-us', model: MODEL }] },
    providers: [createBedrockProvider(options)],
  });
  return pipeline;
}



describe('Claude on Bedrock: InvokeModel with the Messages body', () => {
  it('streams a Claude Code request through, signed; the body is the client’s but for what Bedrock requires', async () => {
    bedrockPipeline();
    const parts = await collect(await pipeline!.stream(claudeCodeRequest()));
    const seen = fake.seen[0]!;
    expect(seen).toMatchObject({ operation: 'invoke-with-response-stream', model: MODEL, accessKeyId: KEY.accessKeyId });
    expect(seen.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(seen.signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'content-type', 'x-amz-content-sha256']));
    const { model: _model, stream: _stream, ...rest } = claudeCodeBody();
    // Every field the client wrote arrives (thinking, tools, cache_control, context_management, metadata).
    expect(seen.body).toEqual({ anthropic_version: 'bedrock-2023-05-31', ...rest, anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-management-2025-06-27'] });
    // The Messages client gets Claude's own events, signature_delta and tool input included.
    const forwarded = parts.map((p) => wireTextOf(p) ?? '').join('');
    expect(forwarded).toContain('"type":"signature_delta"');
    expect(forwarded).toContain('"partial_json":"\\"pnpm test -- math\\"}"');
    expect(parts.find((p) => p.type === 'finish')).toMatchObject({ finishReason: 'tool_calls' });
    expect(parts.filter((p) => p.type === 'tool-call-delta').map((p) => (p as { argumentsDelta?: string }).argumentsDelta ?? '').join('')).toContain('pnpm test -- math');
  });

  it('decodes frames split across chunks and packed several to a chunk, byte by byte included', async () => {
    bedrockPipeline();
    for (const sizes of [[1], [3, 5000], [10_000]]) {
      fake.chunkSizes = sizes;
      const parts = await collect(await pipeline!.stream(claudeCodeRequest()));
      expect(parts.map((p) => wireTextOf(p) ?? '').join('').match(/^event: /gm)?.length, `chunks of ${sizes.join(',')}`).toBe(claudeCodeEvents('m').length - 1);
    }
  });

  it('answers a non-streamed request with the Message Bedrock sent, kept for a Messages client', async () => {
    bedrockPipeline();
    const answer = await pipeline!.chat(claudeCodeRequest());
    expect(fake.seen[0]!.operation).toBe('invoke');
    expect(fake.seen[0]!.body).not.toHaveProperty('stream');
    expect(JSON.parse(wireBodyOf(answer, ANTHROPIC_MESSAGES)!)).toMatchObject({ content: [{ type: 'thinking' }, { type: 'text' }, { type: 'tool_use', input: { command: 'pnpm test -- math' } }] });
  });

  it('builds the Messages body from a unified request too', async () => {
    bedrockPipeline();
    const answer = await pipeline!.chat({ model: 'claude', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], max_tokens: 50 });
    expect(fake.seen[0]!.body).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 50, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(answer.choices[0]!.message.tool_calls?.[0]?.function.name).toBe('Bash');
  });

  it('an endpoint’s anthropicBetas replaces the allow-list', async () => {
    bedrockPipeline({ options: { anthropicBetas: ['interleaved-thinking-2025-05-14'] } });
    await collect(await pipeline!.stream(claudeCodeRequest()));
    expect(fake.seen[0]!.body.anthropic_beta).toEqual(['interleaved-thinking-2025-05-14']);
  });

  it('sends a Bedrock API key as a bearer token instead of signing', async () => {
    bedrockPipeline({ apiKey: 'ABSKbedrock-api-key-0123456789SECRET' }, { source: () => () => Promise.reject(new Error('the chain must not be asked')) });
    await pipeline!.chat(claudeCodeRequest());
    expect(fake.seen[0]).toMatchObject({ bearer: 'ABSKbedrock-api-key-0123456789SECRET', accessKeyId: undefined });
    expect(describeCredentialSource({ name: 'b', provider: 'bedrock', apiKey: 'x' })).toBe('Bedrock API key (bearer)');
  });

  it('counts tokens with CountTokens on the foundation model, the InvokeModel body base64-encoded', async () => {
    const p = bedrockPipeline();
    const provider = p.providers.get('bedrock')!;
    const target = p.candidatesFor('claude')[0]!;
    const wire = await toWireRequest(provider, target, provider.buildCountTokensRequest!(claudeCodeRequest(), target));
    expect(wire.url).toBe(`${fake.url}/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens`);
    const res = await p.transport.request({ ...wire, signal: new AbortController().signal });
    const text = await new Response(res.body as unknown as ReadableStream).text();
    expect(res.status).toBe(200);
    expect(provider.parseCountTokensResponse!({ status: 200, headers: {}, text, json: JSON.parse(text) }, target)).toBeGreaterThan(10);
    expect(fake.seen[0]!.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', thinking: { type: 'enabled' } });
  });
});

describe('Bedrock failures', () => {

  it.each([
    [429, 'ThrottlingException', 'Too many requests, please wait before trying again.', 'rate-limit', 'rate-limited'],
    [503, 'ServiceUnavailableException', 'Bedrock is unable to process your request.', 'overloaded', 'endpoint-failure'],
    [429, 'ModelNotReadyException', 'Model is not ready for inference.', 'overloaded', 'endpoint-failure'],
    [400, 'ValidationException', 'messages: text content blocks must be non-empty', 'bad-request', 'request-failure'],
    [400, 'ValidationException', 'prompt is too long: 210000 tokens > 200000 maximum', 'context-length', 'request-failure'],
    [403, 'AccessDeniedException', 'You don’t have access to the model with the specified model ID.', 'auth', 'key-failure'],
    [403, 'ExpiredTokenException', 'The security token included in the request is expired', 'auth', 'key-failure'],
  ])('%s %s → %s', async (status, exception, message, kind, outcome) => {
    bedrockPipeline();
    fake.next({ type: 'http-error', status, exception, message });
    const error = await failureOf(() => pipeline!.chat(claudeCodeRequest()));
    expect(error).toMatchObject({ kind, vendorCode: exception, provider: 'bedrock' });
    expect(outcomeOf(error)).toBe(outcome);
  });

  it('a signature Bedrock cannot verify is a key failure', async () => {
    bedrockPipeline({}, { source: () => async () => ({ accessKeyId: KEY.accessKeyId, secretAccessKey: 'not-the-secret' }) });
    const error = await failureOf(() => pipeline!.chat(claudeCodeRequest()));
    expect(error).toMatchObject({ kind: 'auth', vendorCode: 'InvalidSignatureException' });
    expect(error.message).not.toContain('not-the-secret');
  });

  it('credentials the chain cannot find are a key failure, before any request', async () => {
    bedrockPipeline({}, { source: () => () => Promise.reject(new Error('Could not load credentials from any providers')) });
    const error = await failureOf(() => pipeline!.chat(claudeCodeRequest()));
    expect(error).toMatchObject({ kind: 'auth' });
    expect(error.message).toContain('Could not load credentials');
    expect(fake.seen).toHaveLength(0);
  });

  it('an exception frame before the first token fails the attempt with its class (throttling → rate-limit)', async () => {
    bedrockPipeline();
    fake.next({ type: 'stream-exception', afterEvents: 1, exception: 'throttlingException', message: 'Too many tokens, please wait before trying again.' });
    const error = await failureOf(async () => collect(await pipeline!.stream(claudeCodeRequest())));
    expect(error).toMatchObject({ kind: 'rate-limit', vendorCode: 'ThrottlingException' });
  });

  it('an exception frame after the commit point ends the stream with an error part, never a truncated success', async () => {
    bedrockPipeline();
    fake.next({ type: 'stream-exception', afterEvents: 7, exception: 'modelStreamErrorException', message: 'The model stream failed.' });
    const parts = await collect(await pipeline!.stream(claudeCodeRequest()));
    expect(parts.some((p) => p.type === 'text-delta')).toBe(true);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { kind: 'server', vendorCode: 'ModelStreamErrorException' } });
  });

  it('a frame claiming more than the event limit fails at its prelude with a coded error, before any of it is kept', async () => {
    pipeline = createPipeline({
      endpoints: [{ name: 'bedrock-us', provider: 'bedrock', region: 'us-east-1', baseUrl: fake.url }],
      models: { claude: [{ endpoint: 'bedrock-us', model: MODEL }] },
      providers: [createBedrockProvider({ source: () => async () => ({ ...KEY }) })],
      responseLimits: { maxEventChars: 1024 * 1024 },
    });
    // 8 MiB is within AWS's own 16 MiB cap (not malformed), past this gateway's 1 MiB; the fake then sends nothing more.
    fake.next({ type: 'huge-frame', afterEvents: 1, claimBytes: 8 * 1024 * 1024 });
    const error = await failureOf(async () => collect(await pipeline!.stream(claudeCodeRequest())));
    expect(error).toMatchObject({ kind: 'server', code: 'SWITCHYARD_ERR_RESPONSE_TOO_LARGE' });
    expect(error.message).toContain('event-stream frame is larger than the limit of 1048576 bytes');
    // A length past AWS's cap is a malformed stream whatever the limit.
    fake.next({ type: 'huge-frame', afterEvents: 0, claimBytes: 0xffff_fff0 });
    expect(await failureOf(async () => collect(await pipeline!.stream(claudeCodeRequest())))).toMatchObject({ vendorCode: 'MalformedEventStream' });
  });

  it('a frame whose CRC does not match is a malformed stream', async () => {
    bedrockPipeline();
    fake.next({ type: 'corrupt-crc', afterEvents: 1 });
    const error = await failureOf(async () => collect(await pipeline!.stream(claudeCodeRequest())));
    expect(error).toMatchObject({ kind: 'server', vendorCode: 'MalformedEventStream' });
    expect(error.message).toMatch(/checksum/);
  });
});
