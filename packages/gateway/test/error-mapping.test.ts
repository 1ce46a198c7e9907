import { afterEach, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { answers, fails, pipelineFor, startGateway, stopAll, vendor, VENDOR_KEY } from './support/harness.js';
import type { Handler } from './support/harness.js';

afterEach(stopAll);

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

interface Case {
  name: string;
  upstream: Handler;
  status: number;
  code: string;
  type?: string;
  retryAfter?: string;
  /** Final errors tell the SDK not to retry on top of the gateway's attempts. */
  final?: boolean;
}

const cases: Case[] = [
  { name: 'upstream 429 with Retry-After', upstream: fails(429, 'slow down', { code: 'rate_limit_exceeded', headers: { 'retry-after': '7' } }), status: 429, code: 'all_candidates_failed', type: 'rate_limit_error', retryAfter: '7' },
  { name: 'upstream 401 on the vendor key (never a 401 to the client)', upstream: fails(401, `Incorrect API key provided: ${VENDOR_KEY}`, { code: 'invalid_api_key', type: 'invalid_request_error' }), status: 502, code: 'all_candidates_failed' },
  { name: 'upstream 402 payment required', upstream: fails(402, 'billing'), status: 502, code: 'all_candidates_failed' },
  { name: 'upstream 500 everywhere', upstream: fails(500), status: 503, code: 'all_candidates_failed', final: true },
  { name: 'context length exceeded', upstream: fails(400, "This model's maximum context length is 8192 tokens", { code: 'context_length_exceeded', type: 'invalid_request_error' }), status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
  { name: 'content filter', upstream: fails(400, 'flagged by the content filter', { code: 'content_filter', type: 'invalid_request_error' }), status: 400, code: 'content_filter', type: 'invalid_request_error' },
  { name: 'other bad request keeps the vendor code', upstream: fails(400, "Invalid value for 'temperature'", { code: 'invalid_value', type: 'invalid_request_error' }), status: 400, code: 'invalid_value', type: 'invalid_request_error' },
  { name: 'upstream 422', upstream: fails(422, 'unprocessable', { code: 'unprocessable', type: 'invalid_request_error' }), status: 422, code: 'unprocessable' },
];

describe('upstream failures become OpenAI-style errors with the right status', () => {
  it.each(cases)('$name → $status $code', async (c) => {
    const only = await vendor(c.upstream);
    const { client } = await startGateway(pipelineFor({ vendors: { only } }));
    const err = await client.chat.completions.create(ask).catch((e) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err.status).toBe(c.status);
    expect(err.code).toBe(c.code);
    if (c.type) expect(err.type).toBe(c.type);
    if (c.retryAfter) expect(err.headers.get('retry-after')).toBe(c.retryAfter);
    expect(err.headers.get('x-should-retry')).toBe(c.retryAfter ? null : 'false');
    if (c.final) expect(err.headers.get('retry-after')).toBeNull();
    expect(err.message).not.toContain(VENDOR_KEY);
    expect(Object.keys(err.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('a request deadline that passes answers 504', async () => {
    const stall = await vendor(() => undefined);
    const { client } = await startGateway(pipelineFor({ vendors: { stall } }), { server: { requestTimeoutMs: 80 } });
    const err = await client.chat.completions.create(ask).catch((e) => e);
    expect(err.status).toBe(504);
    expect(err.code).toBe('all_candidates_failed');
  });

  it('sheds load beyond maxInFlight with 503 and Retry-After, and serves the rest', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = await vendor(async (req, res, body) => {
      await gate;
      await answers(['done'])(req, res, body);
    });
    const { client, gateway } = await startGateway(pipelineFor({ vendors: { slow } }), { server: { maxInFlight: 1 } });
    const first = client.chat.completions.create(ask);
    await expect.poll(() => gateway.inFlight).toBe(1);
    const shed = await client.chat.completions.create(ask).catch((e) => e);
    expect(shed.status).toBe(503);
    expect(shed.code).toBe('overloaded');
    expect(shed.headers.get('retry-after')).toBe('1');
    release();
    expect((await first).choices[0].message.content).toBe('done');
    expect((await client.chat.completions.create(ask)).choices[0].message.content).toBe('done');
  });
});
