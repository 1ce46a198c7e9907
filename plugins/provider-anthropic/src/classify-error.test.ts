import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchyardError, outcomeOf, type StreamPart, type SwitchyardError } from '@switchyard/core';
import { joinUrl } from '@switchyard/core/internal';
import { readBodyText } from '@switchyard/core/wire';
import { anthropicProvider } from './index.js';
import { anthropicRig, cassette, fixtureJson, fixtureText, json, reframe, replay, sse, sseEvent, type TestRig } from '../test/support.js';

let rig: TestRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const textStream = () => sse(reframe(fixtureText('anthropic-text.chunks.txt')));
const anthropicError = (type: string, message: string, extra: Record<string, unknown> = {}) => ({ type: 'error', error: { type, message, ...extra }, request_id: 'req_011test' });

const messageStart = sseEvent({ type: 'message_start', message: { id: 'msg_e', model: 'claude-e', content: [], usage: { input_tokens: 4, output_tokens: 1 } } });
const overloadedEvent = sseEvent(anthropicError('overloaded_error', 'Overloaded'));

/** The error the single attempt of a one-endpoint rig failed with. */
async function attemptError(handler: Parameters<typeof anthropicRig>[0][number]): Promise<SwitchyardError> {
  rig = await anthropicRig([handler]);
  await expect(rig.pipeline.chat(ask)).rejects.toSatisfy(isSwitchyardError);
  expect(rig.attempts).toHaveLength(1);
  return rig.attempts[0]!.error!;
}

describe('errors inside an HTTP 200 stream', () => {
  it('an error event before the first token fails over to the next endpoint', async () => {
    rig = await anthropicRig([sse(messageStart + sseEvent({ type: 'ping' }) + overloadedEvent), textStream()]);
    const stream = await rig.pipeline.stream(ask);
    expect(stream.info.endpoint).toBe('b');
    const r = await stream.collect();
    expect(r.choices[0]!.message.content).toMatch(/^Hello! I'm doing well/);
    expect(r.switchyard?.attempts).toBe(2);
    expect(rig.attempts[0]).toMatchObject({ ok: false, outcome: 'endpoint-failure', phase: 'pre-commit', error: { kind: 'overloaded', retryable: true, vendorCode: 'overloaded_error', status: 529 } });
  });

  const cutAfterHel = messageStart + sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) + sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }) + overloadedEvent;

  it('an error event after the first token ends the stream with an error part, never a clean finish', async () => {
    rig = await anthropicRig([sse(cutAfterHel)]);
    const parts: StreamPart[] = [];
    for await (const part of await rig.pipeline.stream(ask)) parts.push(part);
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([{ type: 'text-delta', text: 'Hel' }]);
    expect(parts.some((p) => p.type === 'finish')).toBe(false);
    const last = parts.at(-1)!;
    expect(last.type).toBe('error');
    expect(last.type === 'error' && last.error).toMatchObject({ kind: 'overloaded', endpoint: 'a' });
    await expect((async () => (await rig!.pipeline.stream(ask)).collect())()).rejects.toMatchObject({ kind: 'overloaded' });
  });

  it('with a backup (Anthropic declares prefill) the cut answer is continued there by default', async () => {
    rig = await anthropicRig([sse(cutAfterHel), textStream()]);
    const parts: StreamPart[] = [];
    for await (const part of await rig.pipeline.stream(ask)) parts.push(part);
    expect(parts.some((p) => p.type === 'error')).toBe(false);
    expect(parts.at(-1)?.type).toBe('finish');
    const sent = JSON.parse(rig.servers[1]!.requests[0].body);
    expect(sent.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Hel' }] });
  });

  it('other error event types are classified by their type', async () => {
    rig = await anthropicRig([sse(messageStart + sseEvent(anthropicError('invalid_request_error', 'prompt is too long: 209353 tokens > 199999 maximum')))]);
    await expect(rig.pipeline.stream(ask)).rejects.toMatchObject({ kind: 'context-length', status: 400 });
  });
});

describe('HTTP errors', () => {
  it('529 overloaded_error is an endpoint failure and fails over', async () => {
    rig = await anthropicRig([json(529, anthropicError('overloaded_error', 'Overloaded')), json(200, fixtureJson('anthropic-text.json'))]);
    const r = await rig.pipeline.chat(ask);
    expect(r.switchyard).toMatchObject({ endpoint: 'b', attempts: 2 });
    expect(rig.attempts[0]).toMatchObject({ outcome: 'endpoint-failure', error: { kind: 'overloaded', status: 529, retryable: true } });
  });

  it('429 rate_limit_error carries the retry-after delay', async () => {
    const error = await attemptError(json(429, anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'), { 'retry-after': '7', 'anthropic-ratelimit-requests-remaining': '0' }));
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 7000, retryable: true, vendorCode: 'rate_limit_error' });
    expect(outcomeOf(error)).toBe('rate-limited');
    expect(error.headers).toMatchObject({ 'retry-after': '7', 'anthropic-ratelimit-requests-remaining': '0' });
  });

  it('429 without retry-after falls back to the anthropic-ratelimit-*-reset timestamp', async () => {
    const reset = new Date(Date.now() + 30_000).toISOString();
    const error = await attemptError(json(429, anthropicError('rate_limit_error', 'slow down'), { 'anthropic-ratelimit-tokens-reset': reset }));
    expect(error.kind).toBe('rate-limit');
    expect(error.retryAfterMs).toBeGreaterThan(25_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('a spend limit is a key failure, not a rate limit', async () => {
    const error = await attemptError(json(429, anthropicError('rate_limit_error', 'You have reached your specified workspace API usage limits.', { details: { error_code: 'enforced_spend_limit_reached' } }), { 'retry-after': '60' }));
    expect(error).toMatchObject({ kind: 'payment', vendorCode: 'enforced_spend_limit_reached', retryable: false });
    expect(outcomeOf(error)).toBe('key-failure');
  });

  it.each([
    [401, 'authentication_error', 'auth'],
    [403, 'permission_error', 'auth'],
    [402, 'billing_error', 'payment'],
  ])('%i %s is a key failure (%s)', async (status, type, kind) => {
    const error = await attemptError(json(status, anthropicError(type, 'no')));
    expect(error).toMatchObject({ kind, status, retryable: false });
    expect(outcomeOf(error)).toBe('key-failure');
  });

  it('never puts the key into an error, even when the upstream echoes it', async () => {
    let seenKey = '';
    rig = await anthropicRig([
      (req, res) => {
        seenKey = String(req.headers['x-api-key']);
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify(anthropicError('authentication_error', `invalid x-api-key: ${seenKey}`)));
      },
    ]);
    const error = (await rig.pipeline.chat(ask).catch((e: unknown) => e)) as SwitchyardError;
    expect(seenKey).toBe('sk-ant-test-key-a-0123456789abcdef');
    const everything = JSON.stringify({ final: error.toJSON(), message: error.message, attempts: rig.attempts.map((a) => ({ message: a.error!.message, json: a.error!.toJSON(), headers: a.error!.headers })) });
    expect(everything).not.toContain(seenKey);
    expect(rig.attempts[0]!.error!.message).toContain('invalid x-api-key');
  });

  it('recorded 404 not_found_error (cassette) is a misconfigured deployment and fails over', async () => {
    const [interaction] = cassette('pydantic-ai__test_anthropic_count_tokens_error.yaml');
    rig = await anthropicRig([replay(interaction!), json(200, fixtureJson('anthropic-text.json'))]);
    const r = await rig.pipeline.chat(ask);
    expect(r.switchyard?.endpoint).toBe('b');
    expect(rig.attempts[0]!.error).toMatchObject({ kind: 'not-found', status: 404, vendorCode: 'not_found_error' });
    expect(rig.attempts[0]!.error!.message).toContain('model: claude-does-not-exist');
    expect(rig.attempts[0]!.error!.message).toContain('req_011CVEA3SF7rnb3DuBZytqQa');
  });

  it('recorded 400 invalid_request_error (cassette) reaches the caller and is not failed over', async () => {
    const [interaction] = cassette('pydantic-ai__test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml');
    rig = await anthropicRig([replay(interaction!), json(200, fixtureJson('anthropic-text.json'))]);
    const error = await rig.pipeline.chat(ask).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'bad-request', status: 400, retryable: false, vendorCode: 'invalid_request_error' });
    expect((error as Error).message).toContain("This model does not support effort level 'xhigh'");
    expect(rig.servers[1]!.requests).toHaveLength(0);
  });

  it('"prompt is too long" is a context-length error', async () => {
    const error = await attemptError(json(400, anthropicError('invalid_request_error', 'prompt is too long: 209353 tokens > 199999 maximum')));
    expect(error).toMatchObject({ kind: 'context-length', status: 400 });
  });

  it('413 from Cloudflare (not JSON) is a bad request with a readable excerpt', async () => {
    const error = await attemptError((_req, res) => {
      res.writeHead(413, { 'content-type': 'text/html' });
      res.end('<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center><hr><center>cloudflare</center></body></html>');
    });
    expect(error).toMatchObject({ kind: 'bad-request', status: 413, retryable: false });
    expect(error.message).toContain('413 Request Entity Too Large');
    expect(error.message).not.toContain('<');
  });

  it.each([
    [413, 'request_too_large', 'bad-request', false],
    [500, 'api_error', 'server', true],
    [504, 'timeout_error', 'timeout', true],
    [404, 'not_found_error', 'not-found', false],
  ])('%i %s → %s', async (status, type, kind, retryable) => {
    const error = await attemptError(json(status, anthropicError(type, 'x')));
    expect(error).toMatchObject({ kind, status, retryable });
  });

  it('x-should-retry: false on a 5xx is honoured', async () => {
    const error = await attemptError(json(500, anthropicError('api_error', 'Internal server error'), { 'x-should-retry': 'false' }));
    expect(error).toMatchObject({ kind: 'server', retryable: false });
  });
});

describe('probe', () => {
  it('is a GET /models with the auth headers', async () => {
    rig = await anthropicRig([json(200, { data: [] })]);
    const candidate = rig.pipeline.candidatesFor('chat')[0]!;
    const probe = anthropicProvider.probe(candidate);
    const res = await rig.pipeline.transport.request({ url: joinUrl(candidate.endpoint.baseUrl!, probe.path), method: probe.method, headers: probe.headers, signal: new AbortController().signal });
    expect(res.status).toBe(200);
    expect(JSON.parse(await readBodyText(res.body))).toEqual({ data: [] });
    const received = rig.servers[0]!.requests[0]!;
    expect(received.path).toBe('/v1/models');
    expect(received.headers['x-api-key']).toBe(candidate.apiKey);
    expect(received.headers['anthropic-version']).toBe('2023-06-01');
  });
});
