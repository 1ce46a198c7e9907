import { describe, expect, it } from 'vitest';
import { checkRequestLimits, DEFAULT_REQUEST_LIMITS, REQUEST_LIMIT_CODE } from './request-limits.js';
import { validateChatRequest } from './validate-request.js';

const base = () => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }] as unknown[] });

function refusal(body: unknown, limits?: Parameters<typeof checkRequestLimits>[1]) {
  try {
    checkRequestLimits(body, limits);
  } catch (error) {
    return error as { code: string; kind: string; path: string; message: string; status: number };
  }
  return undefined;
}

describe('checkRequestLimits', () => {
  it('refuses deep nesting without recursing (100,000 levels)', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal({ ...base(), extra: deep })).toMatchObject({ kind: 'invalid-request', code: REQUEST_LIMIT_CODE, path: 'extra', status: 400 });
  });

  it('refuses wide arrays and objects, too many messages or tools, and oversized schemas', () => {
    expect(refusal({ ...base(), stop: new Array(DEFAULT_REQUEST_LIMITS.maxArrayLength + 1).fill('x') })?.path).toBe('stop');
    expect(refusal({ ...base(), metadata: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, 'v'])) })?.path).toBe('metadata');
    expect(refusal({ ...base(), messages: new Array(2001).fill({ role: 'user', content: 'x' }) })?.path).toBe('messages');
    expect(refusal({ ...base(), tools: new Array(257).fill({ type: 'function', function: { name: 'f' } }) })?.path).toBe('tools');
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(80) }])) };
    expect(refusal({ ...base(), tools: [{ type: 'function', function: { name: 'f', parameters: big } }] })?.path).toBe('tools[0].function.parameters');
    expect(refusal({ ...base(), response_format: { type: 'json_schema', json_schema: { name: 'x', schema: big } } })?.path).toBe('response_format.json_schema.schema');
  });

  it('takes configured limits and lets ordinary requests through', () => {
    expect(refusal(base())).toBeUndefined();
    expect(refusal({ ...base(), extra: [[[[]]]] }, { maxDepth: 3 })).toMatchObject({ message: 'extra is nested deeper than 3 levels' });
    expect(refusal({ ...base(), extra: [[[[]]]] }, { maxDepth: 10 })).toBeUndefined();
  });

  it('a body checked with the gateway limits is not walked again by the core validator', () => {
    const body = { ...base(), extra: [[[[[[[[[[]]]]]]]]]] };
    checkRequestLimits(body, { maxDepth: 100 });
    expect(() => validateChatRequest(body)).not.toThrow();
    let deeper: unknown = [];
    for (let i = 0; i < 100; i++) deeper = [deeper];
    expect(() => validateChatRequest({ ...base(), extra: deeper })).toThrow(/nested deeper than 64/);
  });

  it('the mark stays on the body it was given: invisible in its fields, not on a copy, and a frozen body is marked too', () => {
    let deeper: unknown = [];
    for (let i = 0; i < 70; i++) deeper = [deeper];
    const body = { ...base(), extra: deeper };
    checkRequestLimits(body, { maxDepth: 100 });
    expect(Reflect.ownKeys(body)).toEqual(['model', 'messages', 'extra']);
    expect(JSON.parse(JSON.stringify(body))).toEqual(structuredClone(body));
    expect(() => validateChatRequest(body)).not.toThrow();
    // A plugin's copy was not walked with the gateway's limits: the core's own apply.
    expect(() => validateChatRequest({ ...body })).toThrow(/nested deeper than 64/);
    const frozen = Object.freeze({ ...base(), extra: deeper });
    checkRequestLimits(frozen, { maxDepth: 100 });
    expect(() => validateChatRequest(frozen)).not.toThrow();
  });
});
