/**
 * Gateway errors in the Messages API's statuses and types, with what the Anthropic SDKs read
 * to decide on a retry (`retry-after`, `x-should-retry`), from real failing vendors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startFaultServer, type FaultName, type FaultOptions, type FaultServer, type Vendor } from '@switchyard/simulate';
import { raw, stopAll } from './support/harness.js';
import { MODEL, pipelineOf, startMessagesGateway, type Deployment } from './support/messages.js';
import { errorReply } from '../src/index.js';
import { renderMessagesError } from '../../../plugins/provider-anthropic/src/dialect/errors.js';

const faults: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(faults.splice(0).map((f) => f.close()));
  await stopAll();
});

async function failing(vendors: [Vendor, FaultName, FaultOptions?][], extra: Partial<Deployment> = {}) {
  const servers = await Promise.all(vendors.map(([vendor, scenario, options]) => startFaultServer({ vendor, scenario, options })));
  faults.push(...servers);
  return startMessagesGateway(pipelineOf(servers.map((s, i) => ({ name: `${vendors[i]![0]}-${i}`, kind: vendors[i]![0], url: s.url, ...extra }))));
}

const body = JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });

describe('errors from real failing vendors', () => {
  it('every vendor overloaded or unavailable: 529 overloaded_error, final (x-should-retry: false)', async () => {
    const h = await failing([['anthropic', 'overloaded'], ['openai', 'unavailable'], ['gemini', 'server-error']]);
    const res = await raw(h.origin, '/v1/messages', { body });
    expect(res.status).toBe(529);
    expect(res.json).toEqual({ type: 'error', error: { type: 'overloaded_error', message: expect.stringMatching(/overloaded 529; .*503; .*500/) } });
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(res.headers.get('x-switchyard-attempts')).toBe('3');
    const error = await h.anthropic.messages.create(JSON.parse(body)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
  });

  it('rate limited everywhere: 429 rate_limit_error keeping the vendor’s retry-after', async () => {
    const h = await failing([['anthropic', 'rate-limited', { retryAfterS: 30 }]]);
    const error = await h.anthropic.messages.create(JSON.parse(body)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const e = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(e.headers.get('retry-after')).toBe('30');
  });

  it("the vendor's reason for a request it refuses reaches the client as invalid_request_error", async () => {
    const h = await failing([['anthropic', 'context-length'], ['openai', 'ok']]);
    const error = await h.anthropic.messages.create(JSON.parse(body)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('prompt is too long') } });
  });

  it('a vendor that never answers: 504 timeout_error', async () => {
    const h = await failing([['openai', 'hang']], { timeouts: { headersMs: 150, firstByteMs: 150, attemptMs: 150 } });
    const res = await raw(h.origin, '/v1/messages', { body });
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'timeout_error' } });
  });
});

describe('the mapping of every gateway reply', () => {
  it.each([
    [errorReply(400, 'bad', 'invalid_request_error', 'invalid_request', 'messages'), 400, 'invalid_request_error', 'messages: bad'],
    [errorReply(409, 'in flight', 'invalid_request_error', 'idempotency_conflict', null, { 'retry-after': '1' }), 409, 'invalid_request_error', 'in flight'],
    [errorReply(401, 'no key', 'invalid_request_error', 'invalid_api_key'), 401, 'authentication_error', 'no key'],
    [errorReply(403, 'forbidden', 'invalid_request_error', 'forbidden'), 403, 'permission_error', 'forbidden'],
    [errorReply(404, 'no such model', 'invalid_request_error', 'model_not_found', 'model'), 404, 'not_found_error', 'model: no such model'],
    [errorReply(413, 'too big', 'invalid_request_error', 'body_too_large'), 413, 'request_too_large', 'too big'],
    [errorReply(429, 'slow down', 'rate_limit_error', 'rate_limit_exceeded', null, { 'retry-after': '7' }), 429, 'rate_limit_error', 'slow down'],
    [errorReply(429, 'budget', 'insufficient_quota', 'budget_exhausted'), 429, 'rate_limit_error', 'budget'],
    [errorReply(502, 'all failed', 'server_error', 'all_candidates_failed'), 529, 'overloaded_error', 'all failed'],
    [errorReply(503, 'at the limit', 'server_error', 'overloaded', null, { 'retry-after': '1' }), 529, 'overloaded_error', 'at the limit'],
    [errorReply(503, 'all breakers open', 'server_error', 'no_candidate', null, { 'retry-after': '1' }), 529, 'overloaded_error', 'all breakers open'],
    [errorReply(504, 'too slow', 'server_error', 'upstream_timeout'), 504, 'timeout_error', 'too slow'],
    [errorReply(502, 'refused our key', 'server_error', 'upstream_auth_failed'), 500, 'api_error', 'refused our key'],
    [errorReply(500, 'config', 'server_error', 'gateway_misconfigured'), 500, 'api_error', 'config'],
    [errorReply(500, 'oops', 'server_error', 'internal_error'), 500, 'api_error', 'oops'],
  ])('%j → %i %s', (reply, status, type, message) => {
    const wire = renderMessagesError(reply);
    expect(wire).toEqual({ status, body: { type: 'error', error: { type, message } }, headers: reply.headers });
  });
});
