import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '@switchyard/core';
import { openaiProvider } from './index.js';
import { attemptError, cassette, closeAll, fixtureText, replay, SECRET_KEY, type Reply, type Vendor } from './test-support/harness.js';

const json = (body: unknown) => JSON.stringify(body);
const openaiError = (message: string, type: string | null, code: string | null) => json({ error: { message, type, param: null, code } });
const decimalError = cassette('pydantic-ai__test_openai_responses_model_http_error.yaml');

interface Row {
  name: string;
  reply: Reply;
  kind: string;
  retryable: boolean;
  outcome: string;
  retryAfterMs?: number;
  vendorCode?: string;
  message?: RegExp;
}

const table: Row[] = [
  { name: '429 insufficient_quota (recorded body)', reply: { status: 429, body: fixtureText('openai-error.1.json') }, kind: 'payment', retryable: false, outcome: 'key-failure', vendorCode: 'insufficient_quota' },
  { name: '429 with retry-after-ms', reply: { status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '9' }, body: openaiError('Rate limit reached for requests', 'requests', 'rate_limit_exceeded') }, kind: 'rate-limit', retryable: true, outcome: 'rate-limited', retryAfterMs: 1500, vendorCode: 'rate_limit_exceeded' },
  { name: '429 with retry-after seconds', reply: { status: 429, headers: { 'retry-after': '7' }, body: openaiError('Rate limit reached', 'tokens', 'rate_limit_exceeded') }, kind: 'rate-limit', retryable: true, outcome: 'rate-limited', retryAfterMs: 7000 },
  { name: '429 with only x-ratelimit-reset-*', reply: { status: 429, headers: { 'x-ratelimit-reset-requests': '1m30s', 'x-ratelimit-reset-tokens': '250ms' }, body: openaiError('Rate limit reached', 'tokens', 'rate_limit_exceeded') }, kind: 'rate-limit', retryable: true, outcome: 'rate-limited', retryAfterMs: 250 },
  { name: '400 context_length_exceeded code', reply: { status: 400, body: openaiError('Too long.', 'invalid_request_error', 'context_length_exceeded') }, kind: 'context-length', retryable: false, outcome: 'request-failure', vendorCode: 'context_length_exceeded' },
  { name: '400 context length by message only', reply: { status: 400, body: openaiError("This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.", 'invalid_request_error', null) }, kind: 'context-length', retryable: false, outcome: 'request-failure' },
  { name: '400 unsupported_parameter (recorded body)', reply: { status: 400, body: fixtureText('reasoning-model-legacy-parameter-error.json') }, kind: 'bad-request', retryable: false, outcome: 'request-failure', vendorCode: 'unsupported_parameter', message: /max_completion_tokens/ },
  { name: '400 code null (recorded body)', reply: { status: 400, body: fixtureText('reasoning-model-temperature-error.json') }, kind: 'bad-request', retryable: false, outcome: 'request-failure', vendorCode: 'invalid_request_error' },
  { name: '400 with recorded headers (cassette)', reply: { status: decimalError.status, headers: decimalError.headers, body: decimalError.body }, kind: 'bad-request', retryable: false, outcome: 'request-failure', vendorCode: 'decimal_below_min_value' },
  { name: '400 content_policy_violation', reply: { status: 400, body: openaiError('Your request was rejected as a result of our safety system.', 'invalid_request_error', 'content_policy_violation') }, kind: 'content-filter', retryable: false, outcome: 'request-failure' },
  { name: '400 with x-should-retry: true', reply: { status: 400, headers: { 'x-should-retry': 'true' }, body: openaiError('Try again', 'invalid_request_error', null) }, kind: 'server', retryable: true, outcome: 'endpoint-failure' },
  { name: '401 echoing the key', reply: { status: 401, body: openaiError(`Incorrect API key provided: ${SECRET_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key') }, kind: 'auth', retryable: false, outcome: 'key-failure', vendorCode: 'invalid_api_key', message: /Incorrect API key provided: \[redacted\]/ },
  { name: '403 region', reply: { status: 403, body: openaiError('Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory') }, kind: 'auth', retryable: false, outcome: 'key-failure' },
  { name: '402 payment', reply: { status: 402, body: openaiError('Insufficient Balance', 'unknown_error', 'invalid_request_error') }, kind: 'payment', retryable: false, outcome: 'key-failure' },
  { name: '404 model_not_found', reply: { status: 404, body: openaiError('The model `gpt-9` does not exist', 'invalid_request_error', 'model_not_found') }, kind: 'not-found', retryable: false, outcome: 'misconfigured', vendorCode: 'model_not_found' },
  { name: '404 HTML from a wrong base URL', reply: { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>404 Not Found</h1></body></html>' }, kind: 'not-found', retryable: false, outcome: 'misconfigured', message: /non-JSON body: 404 Not Found/ },
  { name: '408 timeout', reply: { status: 408, body: openaiError('Request timed out', 'server_error', null) }, kind: 'timeout', retryable: true, outcome: 'endpoint-failure' },
  { name: '409 conflict', reply: { status: 409, body: openaiError('Conflict', 'server_error', null) }, kind: 'server', retryable: true, outcome: 'endpoint-failure' },
  { name: '413 text from the edge', reply: { status: 413, headers: { 'content-type': 'text/plain' }, body: 'Request Entity Too Large' }, kind: 'bad-request', retryable: false, outcome: 'request-failure', message: /Request Entity Too Large/ },
  { name: '422 invalid parameters', reply: { status: 422, body: openaiError('Invalid Parameters', 'invalid_request_error', null) }, kind: 'bad-request', retryable: false, outcome: 'request-failure' },
  { name: '500 server_error', reply: { status: 500, body: openaiError('The server had an error while processing your request.', 'server_error', null) }, kind: 'server', retryable: true, outcome: 'endpoint-failure' },
  { name: '500 with x-should-retry: false', reply: { status: 500, headers: { 'x-should-retry': 'false' }, body: openaiError('Do not retry', 'server_error', null) }, kind: 'server', retryable: false, outcome: 'endpoint-failure' },
  { name: '502 HTML from a CDN', reply: { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>' }, kind: 'server', retryable: true, outcome: 'endpoint-failure', message: /non-JSON body: 502 Bad Gateway 502 Bad Gateway cloudflare/ },
  { name: '503 engine overloaded', reply: { status: 503, headers: { 'retry-after': '2' }, body: openaiError('The engine is currently overloaded, please try again later', 'server_error', null) }, kind: 'overloaded', retryable: true, outcome: 'endpoint-failure', retryAfterMs: 2000 },
  { name: '504 empty body', reply: { status: 504, body: '' }, kind: 'server', retryable: true, outcome: 'endpoint-failure', message: /504: \(empty body\)/ },
  { name: 'vLLM flat 400', reply: { status: 400, body: json({ object: 'error', message: 'invalid tool_choice', type: 'BadRequestError', param: null, code: 400 }) }, kind: 'bad-request', retryable: false, outcome: 'request-failure', vendorCode: 'BadRequestError' },
];

let vendor: Vendor;
let pipeline: Pipeline;
beforeAll(async () => {
  ({ vendor, pipeline } = await replay(openaiProvider, table[0].reply));
});
afterAll(closeAll);

describe('openai error classification table (status and body → kind), through the pipeline', () => {
  it.each(table)('$name', async (row) => {
    vendor.reply = row.reply;
    const error = await attemptError(pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'x' }] }));
    expect({ kind: error.kind, retryable: error.retryable, outcome: error.outcome, status: error.status }).toEqual({ kind: row.kind, retryable: row.retryable, outcome: row.outcome, status: row.reply.status });
    expect(error.retryAfterMs).toBe(row.retryAfterMs);
    if (row.vendorCode) expect(error.vendorCode).toBe(row.vendorCode);
    if (row.message) expect(error.message).toMatch(row.message);
    expect(error).toMatchObject({ provider: 'openai', endpoint: 'up', deployment: 'up/upstream-model' });
  });

  it('no key appears in any error message, field or header, nor in the final pipeline error', async () => {
    for (const row of table) {
      vendor.reply = row.reply;
      let thrown: unknown;
      await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => (thrown = e));
      const text = everything(thrown);
      expect(text).toContain(row.reply.status === 401 ? 'Incorrect API key' : 'answered');
      expect(text).not.toContain('SECRETSECRET');
    }
  });
});

/** Every string reachable from an error (messages, fields, headers, attempts, causes), cycles included. */
function everything(value: unknown, seen = new WeakSet<object>()): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || seen.has(value)) return '';
  seen.add(value);
  const own = value instanceof Error ? [value.message, everything(value.cause, seen)] : [];
  return [...own, ...Object.values(value).map((v) => everything(v, seen))].join('\n');
}
