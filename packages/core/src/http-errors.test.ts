import { describe, expect, it } from 'vitest';
import { httpError, isContextLengthMessage, kindForStatus, parseDuration, parseProtoDuration, parseRetryAfter } from './http-errors.js';
import { outcomeOf, SwitchyardError } from './errors.js';
import { redactSecrets } from './redact-secrets.js';

describe('retry delay headers', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    [{ 'retry-after-ms': '1500' }, 1500],
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, 30_000],
    [{ 'retry-after-ms': '100', 'retry-after': '9' }, 100],
    [{ 'x-ratelimit-reset-requests': '6m0s', 'x-ratelimit-reset-tokens': '12ms' }, 12],
    [{ 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:05Z' }, 5000],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j → %s ms', (headers, expected) => {
    expect(parseRetryAfter(headers as Record<string, string>, now)).toBe(expected);
  });

  it('parses Go and protobuf durations', () => {
    expect(parseDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseDuration('bogus')).toBeUndefined();
    expect(parseProtoDuration('34.4s')).toBeCloseTo(34_400);
    expect(parseProtoDuration(34)).toBeUndefined();
  });
});

describe('classification table', () => {
  it.each([
    [400, 'bad-request', 'request-failure', false],
    [401, 'auth', 'key-failure', false],
    [402, 'payment', 'key-failure', false],
    [403, 'auth', 'key-failure', false],
    [404, 'not-found', 'misconfigured', false],
    [408, 'timeout', 'endpoint-failure', true],
    [413, 'bad-request', 'request-failure', false],
    [422, 'bad-request', 'request-failure', false],
    [429, 'rate-limit', 'rate-limited', true],
    [500, 'server', 'endpoint-failure', true],
    [502, 'server', 'endpoint-failure', true],
    [503, 'overloaded', 'endpoint-failure', true],
    [504, 'server', 'endpoint-failure', true],
    [529, 'overloaded', 'endpoint-failure', true],
  ])('status %i → %s (%s, retryable %s)', (status, kind, outcome, retryable) => {
    expect(kindForStatus(status)).toBe(kind);
    const error = httpError({ status, headers: {}, message: 'x' });
    expect(error.kind).toBe(kind);
    expect(outcomeOf(error)).toBe(outcome);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
  });

  it('honours x-should-retry and keeps only policy headers', () => {
    const e = httpError({ status: 500, headers: { 'x-should-retry': 'false', 'set-cookie': 'a=b', 'retry-after': '3' }, message: 'x' });
    expect(e.retryable).toBe(false);
    expect(e.retryAfterMs).toBe(3000);
    expect(e.headers).toEqual({ 'x-should-retry': 'false', 'retry-after': '3' });
  });

  it('detects context-length messages across vendors', () => {
    expect(isContextLengthMessage("This model's maximum context length is 128000 tokens.")).toBe(true);
    expect(isContextLengthMessage('prompt is too long: 209353 tokens > 199999 maximum')).toBe(true);
    expect(isContextLengthMessage('The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).')).toBe(true);
    expect(isContextLengthMessage('x', 'context_length_exceeded')).toBe(true);
    expect(isContextLengthMessage('Invalid value for temperature')).toBe(false);
  });

  it('cancelled and local rejections count nowhere', () => {
    expect(outcomeOf(new SwitchyardError('cancelled', 'x'))).toBe('ignored');
    expect(outcomeOf(new SwitchyardError('budget-exhausted', 'x'))).toBe('ignored');
    expect(outcomeOf(new SwitchyardError('no-candidate', 'x'))).toBe('ignored');
    expect(outcomeOf(new Error('plain'))).toBe('endpoint-failure');
  });

  it('redacts keys and bearer tokens', () => {
    const text = redactSecrets('key sk-proj-abcdefghijklmnop and Bearer xyz123 and AIzaSyA1234567890123456789012345 and mysecret', ['mysecret']);
    expect(text).not.toMatch(/abcdefghijklmnop|xyz123|1234567890123456789012345|mysecret/);
  });

  it('is recognised across copies by its marker, not instanceof', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('switchyard.error')]: true });
    expect(SwitchyardError.isInstance(foreign)).toBe(true);
    expect(SwitchyardError.isInstance(new Error('x'))).toBe(false);
  });
});
