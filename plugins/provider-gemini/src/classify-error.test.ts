/** Gemini error bodies → unified kinds, through the pipeline for the vendor's signature cases. */
import { afterEach, describe, expect, it } from 'vitest';
import { outcomeOf, type ProviderHttpResponse, type SwitchyardError } from '@switchyard/core';
import { API_KEY, fixture, geminiRig, json, type GeminiRig } from '../test/harness.js';
import { geminiProvider } from './index.js';

const rigs: GeminiRig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.close()));
});

async function failure(status: number, body: unknown): Promise<SwitchyardError> {
  const r = await geminiRig(json(status, body));
  rigs.push(r);
  const error = (await r.pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).then(
    () => undefined,
    (e: unknown) => e,
  )) as SwitchyardError;
  expect(error).toBeDefined();
  return error;
}

/** The error of the (only) attempt, whether the pipeline reports it as is or aggregated. */
const attemptError = (error: SwitchyardError) => error.attempts?.[0] ?? error;

const target = { apiKey: API_KEY, endpoint: { name: 'google', provider: 'gemini' } } as never;
function classify(status: number, body: unknown, headers: Record<string, string> = {}): SwitchyardError {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const response: ProviderHttpResponse = { status, headers, text, json: parsed };
  return geminiProvider.classifyError(response, target);
}

const googleError = (code: number, status: string, message: string, details: unknown[] = []) => ({ error: { code, message, status, details } });
const errorInfo = (reason: string) => ({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' });

describe('classifyError through the pipeline', () => {
  it('429 RESOURCE_EXHAUSTED with RetryInfo "34.4s" → rate-limit, retryAfterMs 34400', async () => {
    const error = await failure(429, fixture('google-429-retry-info.json'));
    const attempt = attemptError(error);
    expect(attempt).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 34_400, retryable: true, vendorCode: 'RESOURCE_EXHAUSTED', provider: 'gemini', endpoint: 'google' });
    expect(outcomeOf(attempt)).toBe('rate-limited');
    expect(error.retryAfterMs).toBe(34_400);
  });

  it('invalid API key sent as 400 INVALID_ARGUMENT + ErrorInfo API_KEY_INVALID → auth, a key failure', async () => {
    const error = await failure(400, googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [errorInfo('API_KEY_INVALID')]));
    const attempt = attemptError(error);
    expect(attempt).toMatchObject({ kind: 'auth', status: 400, retryable: false, keyId: 'google#0' });
    expect(outcomeOf(attempt)).toBe('key-failure');
    expect(JSON.stringify(error)).not.toContain(API_KEY);
  });

  it('a vendor message that echoes the key is redacted everywhere', async () => {
    const error = await failure(403, googleError(403, 'PERMISSION_DENIED', `Key ${API_KEY} is blocked for this project`));
    for (const e of [error, attemptError(error)]) {
      expect(e.message).not.toContain(API_KEY);
      expect(JSON.stringify(e.toJSON())).not.toContain(API_KEY);
    }
    expect(attemptError(error).kind).toBe('auth');
  });
});

describe('classifyError mapping', () => {
  it.each([
    ['400 API key message without ErrorInfo', 400, googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'), 'auth'],
    ['400 API key expired', 400, googleError(400, 'INVALID_ARGUMENT', 'API key expired. Please renew the API key.', [errorInfo('API_KEY_EXPIRED')]), 'auth'],
    ['400 input too long', 400, googleError(400, 'INVALID_ARGUMENT', 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).'), 'context-length'],
    ['400 other invalid argument', 400, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unknown name "foo"'), 'bad-request'],
    ['400 FAILED_PRECONDITION billing', 400, googleError(400, 'FAILED_PRECONDITION', 'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.'), 'payment'],
    ['400 FAILED_PRECONDITION location', 400, googleError(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.'), 'auth'],
    ['401 UNAUTHENTICATED', 401, googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'), 'auth'],
    ['403 PERMISSION_DENIED', 403, googleError(403, 'PERMISSION_DENIED', 'Generative Language API has not been used in project 1 before or it is disabled.'), 'auth'],
    ['404 NOT_FOUND', 404, googleError(404, 'NOT_FOUND', 'models/gemini-9 is not found for API version v1beta'), 'not-found'],
    ['429 per-day quota', 429, googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }] }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20s' }]), 'payment'],
    ['429 zero quota on this tier', 429, googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro'), 'payment'],
    ['500 INTERNAL', 500, googleError(500, 'INTERNAL', 'An internal error has occurred.'), 'server'],
    ['503 UNAVAILABLE', 503, googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'), 'overloaded'],
    ['504 DEADLINE_EXCEEDED', 504, googleError(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'), 'timeout'],
    ['502 HTML from a proxy', 502, '<html><body><h1>502 Bad Gateway</h1></body></html>', 'server'],
    ['504 plain text', 504, 'upstream request timeout', 'timeout'],
  ] as const)('%s → %s', (_name, status, body, kind) => {
    const error = classify(status, body);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.message).toMatch(new RegExp(`^gemini answered ${status}: `));
  });

  it('key failures and request failures are not retryable; endpoint failures are', () => {
    expect(classify(429, googleError(429, 'RESOURCE_EXHAUSTED', 'x', [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'RequestsPerDay' }] }])).retryable).toBe(false);
    expect(classify(400, googleError(400, 'INVALID_ARGUMENT', 'bad')).retryable).toBe(false);
    expect(classify(503, googleError(503, 'UNAVAILABLE', 'busy')).retryable).toBe(true);
  });

  it('keeps the proxy page excerpt readable and a Retry-After header honoured when the body has no RetryInfo', () => {
    const html = classify(502, '<html><body><h1>502 Bad Gateway</h1></body></html>');
    expect(html.message).toBe('gemini answered 502: 502 Bad Gateway');
    const limited = classify(429, googleError(429, 'RESOURCE_EXHAUSTED', 'slow down'), { 'retry-after': '3' });
    expect(limited).toMatchObject({ kind: 'rate-limit', retryAfterMs: 3000 });
  });
});
